package storetest

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

func tokenHash(text string) []byte {
	sum := sha256.Sum256([]byte(text))
	return sum[:]
}

func createToken(t *testing.T, s registry.Store, owner *registry.Account, name string, created time.Time) *registry.Token {
	t.Helper()
	tok := &registry.Token{AccountID: owner.ID, Name: name, Hash: tokenHash(owner.Username + "/" + name), CreatedAt: created}
	if err := s.CreateToken(ctx(), tok); err != nil {
		t.Fatalf("CreateToken(%s): %v", name, err)
	}
	return tok
}

func (su suite) testTokens(t *testing.T) {
	t.Run("created token is found by its hash", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		expires := at(60 * 24 * 30).In(cet)
		tok := &registry.Token{AccountID: alice.ID, Name: "laptop", Hash: tokenHash("pact_secret"), CreatedAt: t0.In(cet), ExpiresAt: &expires}
		if err := s.CreateToken(ctx(), tok); err != nil {
			t.Fatalf("CreateToken: %v", err)
		}
		if tok.ID == 0 {
			t.Fatal("CreateToken did not set ID")
		}
		got, err := tokenByHash(t, s, tokenHash("pact_secret"))
		if err != nil {
			t.Fatalf("TokenByHash: %v", err)
		}
		if got.ID != tok.ID || got.AccountID != alice.ID || got.Name != "laptop" || !bytes.Equal(got.Hash, tok.Hash) {
			t.Errorf("TokenByHash = %+v, want %+v", got, tok)
		}
		wantTime(t, "CreatedAt", got.CreatedAt, t0)
		wantOptionalTime(t, "ExpiresAt", got.ExpiresAt, &expires)
		wantOptionalTime(t, "LastUsedAt", got.LastUsedAt, nil)
		wantOptionalTime(t, "RevokedAt", got.RevokedAt, nil)
		if !got.Active(at(1)) || got.Active(at(60*24*31)) {
			t.Errorf("token should be active until it expires")
		}
		// TokenHolder's account is the account as AccountByID reads it.
		_, holder, err := s.TokenHolder(ctx(), tokenHash("pact_secret"))
		if err != nil {
			t.Fatalf("TokenHolder: %v", err)
		}
		byID, err := s.AccountByID(ctx(), alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprintf("%+v", holder) != fmt.Sprintf("%+v", byID) {
			t.Errorf("TokenHolder's account = %+v, want %+v", holder, byID)
		}
	})

	t.Run("unknown hash is not found", func(t *testing.T) {
		s := su.store(t)
		createToken(t, s, createAccount(t, s, "alice"), "laptop", t0)
		_, err := tokenByHash(t, s, tokenHash("pact_guess"))
		wantCode(t, "TokenByHash", err, registry.NotFound)
	})

	// The whole hash is compared: one that differs only in its last or a
	// middle byte, as the hash of a near-miss guess might if only a prefix
	// were compared or indexed, finds nothing.
	t.Run("a hash differing in one byte is not found", func(t *testing.T) {
		s := su.store(t)
		createToken(t, s, createAccount(t, s, "alice"), "laptop", t0)
		valid := tokenHash("alice/laptop")
		for _, i := range []int{len(valid) - 1, len(valid) / 2} {
			near := slices.Clone(valid)
			near[i] ^= 0x01
			_, err := tokenByHash(t, s, near)
			wantCode(t, fmt.Sprintf("TokenByHash with byte %d changed", i), err, registry.NotFound)
		}
		if got, err := tokenByHash(t, s, valid); err != nil || !bytes.Equal(got.Hash, valid) {
			t.Errorf("TokenByHash(valid) = %+v, %v", got, err)
		}
	})

	t.Run("a hash is stored once", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		createToken(t, s, alice, "laptop", t0)
		err := s.CreateToken(ctx(), &registry.Token{AccountID: alice.ID, Name: "again", Hash: tokenHash("alice/laptop"), CreatedAt: t0})
		wantCode(t, "CreateToken with a stored hash", err, registry.Conflict)
	})

	t.Run("token of a missing account is refused", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		err := s.CreateToken(ctx(), &registry.Token{AccountID: alice.ID + 1000, Name: "x", Hash: tokenHash("x"), CreatedAt: t0})
		wantCode(t, "CreateToken", err, registry.NotFound)
	})

	t.Run("an account's tokens are listed newest first", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		createToken(t, s, alice, "first", at(0))
		createToken(t, s, bob, "bobs", at(1))
		createToken(t, s, alice, "third", at(10))
		createToken(t, s, alice, "second", at(5))
		cases := []struct {
			name    string
			account int64
			want    []string
		}{
			{"alice", alice.ID, []string{"third", "second", "first"}},
			{"bob", bob.ID, []string{"bobs"}},
			{"an account without tokens", bob.ID + 1000, nil},
		}
		for _, c := range cases {
			tokens, err := s.ListTokens(ctx(), c.account)
			if err != nil {
				t.Fatalf("%s: ListTokens: %v", c.name, err)
			}
			var names []string
			for _, tok := range tokens {
				names = append(names, tok.Name)
				if tok.AccountID != c.account {
					t.Errorf("%s: listed token %q of account %d", c.name, tok.Name, tok.AccountID)
				}
			}
			if !slices.Equal(names, c.want) {
				t.Errorf("%s: ListTokens = %q, want %q", c.name, names, c.want)
			}
		}
	})

	t.Run("revoking", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		tok := createToken(t, s, alice, "laptop", t0)

		err := s.RevokeToken(ctx(), bob.ID, tok.ID, at(1))
		wantCode(t, "bob revokes alice's token", err, registry.NotFound)
		err = s.RevokeToken(ctx(), alice.ID, tok.ID+1000, at(1))
		wantCode(t, "alice revokes a missing token", err, registry.NotFound)
		got, err := tokenByHash(t, s, tok.Hash)
		if err != nil {
			t.Fatalf("TokenByHash: %v", err)
		}
		wantOptionalTime(t, "RevokedAt after refused revocations", got.RevokedAt, nil)

		if err := s.RevokeToken(ctx(), alice.ID, tok.ID, at(2).In(cet)); err != nil {
			t.Fatalf("alice revokes her token: %v", err)
		}
		got, err = tokenByHash(t, s, tok.Hash)
		if err != nil {
			t.Fatalf("TokenByHash of a revoked token: %v", err)
		}
		wantOptionalTime(t, "RevokedAt", got.RevokedAt, ptr(at(2)))
		if got.Active(at(3)) {
			t.Error("a revoked token is active")
		}
		if err := s.RevokeToken(ctx(), alice.ID, tok.ID, at(5)); err != nil {
			t.Fatalf("revoking again: %v", err)
		}
		got, _ = tokenByHash(t, s, tok.Hash)
		wantOptionalTime(t, "RevokedAt after revoking again", got.RevokedAt, ptr(at(2)))
	})

	t.Run("touching records last use", func(t *testing.T) {
		s := su.store(t)
		tok := createToken(t, s, createAccount(t, s, "alice"), "laptop", t0)
		for _, minute := range []int{5, 9} {
			if err := s.TouchToken(ctx(), tok.ID, at(minute)); err != nil {
				t.Fatalf("TouchToken: %v", err)
			}
			got, err := tokenByHash(t, s, tok.Hash)
			if err != nil {
				t.Fatalf("TokenByHash: %v", err)
			}
			wantOptionalTime(t, "LastUsedAt", got.LastUsedAt, ptr(at(minute)))
		}
		wantCode(t, "TouchToken of a missing token", s.TouchToken(ctx(), tok.ID+1000, at(10)), registry.NotFound)
	})
}

// testTokenScopes: scopes and package globs are kept as given, and nil
// (every scope, every pack) stays distinct from an empty list (none).
func (su suite) testTokenScopes(t *testing.T) {
	t.Run("scopes and packages are stored as given", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		cases := []struct {
			name     string
			scopes   []registry.Scope
			packages []string
		}{
			{"full power", nil, nil},
			{"no scope at all", []registry.Scope{}, nil},
			{"publish to some packs", []registry.Scope{registry.ScopePublish, registry.ScopeYank}, []string{"widget-*", "gadget", "[ab]?c"}},
			{"every scope listed", registry.Scopes, nil},
		}
		for i, c := range cases {
			tok := &registry.Token{AccountID: alice.ID, Name: c.name, Hash: tokenHash(c.name), CreatedAt: at(i), Scopes: c.scopes, Packages: c.packages}
			if err := s.CreateToken(ctx(), tok); err != nil {
				t.Fatalf("%s: CreateToken: %v", c.name, err)
			}
			byHash, err := tokenByHash(t, s, tokenHash(c.name))
			if err != nil {
				t.Fatalf("%s: TokenByHash: %v", c.name, err)
			}
			byID, err := s.TokenByID(ctx(), tok.ID)
			if err != nil {
				t.Fatalf("%s: TokenByID: %v", c.name, err)
			}
			for how, got := range map[string]*registry.Token{"TokenByHash": byHash, "TokenByID": byID} {
				if (got.Scopes == nil) != (c.scopes == nil) || !slices.Equal(got.Scopes, c.scopes) {
					t.Errorf("%s: %s scopes = %#v, want %#v", c.name, how, got.Scopes, c.scopes)
				}
				if (got.Packages == nil) != (c.packages == nil) || !slices.Equal(got.Packages, c.packages) {
					t.Errorf("%s: %s packages = %#v, want %#v", c.name, how, got.Packages, c.packages)
				}
			}
		}
		listed, err := s.ListTokens(ctx(), alice.ID)
		if err != nil {
			t.Fatalf("ListTokens: %v", err)
		}
		if len(listed) != len(cases) || listed[0].Name != "every scope listed" || !slices.Equal(listed[0].Scopes, registry.Scopes) ||
			listed[3].Scopes != nil || listed[2].Scopes == nil || len(listed[2].Scopes) != 0 {
			t.Errorf("ListTokens = %+v, want the four tokens newest first with their scopes", listed)
		}
	})

	t.Run("a token is found by its id", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		tok := createToken(t, s, alice, "laptop", t0)
		got, err := s.TokenByID(ctx(), tok.ID)
		if err != nil || got.AccountID != alice.ID || got.Name != "laptop" || !bytes.Equal(got.Hash, tok.Hash) {
			t.Errorf("TokenByID = %+v, %v", got, err)
		}
		_, err = s.TokenByID(ctx(), tok.ID+1000)
		wantCode(t, "TokenByID of a missing token", err, registry.NotFound)
	})
}

// tokenByHash reads a token through TokenHolder, the store's one way to
// find a token by its hash, and checks that the account read with it is
// the token's.
func tokenByHash(t *testing.T, s registry.Store, hash []byte) (*registry.Token, error) {
	t.Helper()
	tok, holder, err := s.TokenHolder(ctx(), hash)
	if err == nil && holder.ID != tok.AccountID {
		t.Errorf("TokenHolder: token of account %d read with account %d", tok.AccountID, holder.ID)
	}
	return tok, err
}
