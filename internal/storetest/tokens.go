package storetest

import (
	"bytes"
	"crypto/sha256"
	"errors"
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

	t.Run("an account's tokens are listed newest first, a page at a time", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		createToken(t, s, alice, "first", at(0))
		createToken(t, s, bob, "bobs", at(1))
		second := createToken(t, s, alice, "second", at(5))
		third := createToken(t, s, alice, "third", at(10))
		expired := at(20)
		fourth := &registry.Token{AccountID: alice.ID, Name: "fourth", Hash: tokenHash("alice/fourth"), CreatedAt: at(15), ExpiresAt: &expired}
		if err := s.CreateToken(ctx(), fourth); err != nil {
			t.Fatal(err)
		}
		if err := s.RevokeToken(ctx(), alice.ID, second.ID, at(11)); err != nil {
			t.Fatal(err)
		}
		active := func(minute int) *time.Time { a := at(minute); return &a }
		cases := []struct {
			name    string
			account int64
			filter  registry.TokenFilter
			want    []string
		}{
			{"alice", alice.ID, registry.TokenFilter{}, []string{"fourth", "third", "second", "first"}},
			{"bob", bob.ID, registry.TokenFilter{}, []string{"bobs"}},
			{"an account without tokens", bob.ID + 1000, registry.TokenFilter{}, nil},
			{"a page", alice.ID, registry.TokenFilter{Limit: 2}, []string{"fourth", "third"}},
			{"the next page", alice.ID, registry.TokenFilter{Before: third.ID, Limit: 2}, []string{"second", "first"}},
			{"active at minute 12: the revoked one left out", alice.ID, registry.TokenFilter{ActiveAt: active(12)}, []string{"fourth", "third", "first"}},
			{"active when the fourth expires", alice.ID, registry.TokenFilter{ActiveAt: active(20)}, []string{"third", "first"}},
			{"active, a page", alice.ID, registry.TokenFilter{ActiveAt: active(20), Before: fourth.ID, Limit: 1}, []string{"third"}},
		}
		for _, c := range cases {
			tokens, err := s.ListTokens(ctx(), c.account, c.filter)
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
		listed, err := s.ListTokens(ctx(), alice.ID, registry.TokenFilter{})
		if err != nil {
			t.Fatalf("ListTokens: %v", err)
		}
		if len(listed) != len(cases) || listed[0].Name != "every scope listed" || !slices.Equal(listed[0].Scopes, registry.Scopes) ||
			listed[3].Scopes != nil || listed[2].Scopes == nil || len(listed[2].Scopes) != 0 {
			t.Errorf("ListTokens = %+v, want the four tokens newest first with their scopes", listed)
		}
	})

	t.Run("active tokens are counted, those exchanged for ID tokens apart", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		expires := at(30)
		add := func(owner *registry.Account, name string, ci bool, expiresAt *time.Time) *registry.Token {
			tok := &registry.Token{AccountID: owner.ID, Name: name, Hash: tokenHash(owner.Username + "/" + name), CreatedAt: t0, ExpiresAt: expiresAt}
			if ci {
				tok.CI = &registry.CIIdentity{Issuer: "https://token.actions.githubusercontent.com", Repository: "alice/widget"}
			}
			if err := s.CreateToken(ctx(), tok); err != nil {
				t.Fatal(err)
			}
			return tok
		}
		add(alice, "laptop", false, nil)
		revoked := add(alice, "old", false, nil)
		add(alice, "month", false, &expires)
		add(alice, "ci-1", true, &expires)
		add(alice, "ci-2", true, &expires)
		add(bob, "bobs", false, nil)
		if err := s.RevokeToken(ctx(), alice.ID, revoked.ID, at(1)); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name      string
			account   int64
			exchanged bool
			now       time.Time
			want      int
		}{
			{"alice's own, before any expires", alice.ID, false, at(2), 2},
			{"alice's exchanged", alice.ID, true, at(2), 2},
			{"alice's own once the month ended", alice.ID, false, at(30), 1},
			{"alice's exchanged once they ended", alice.ID, true, at(30), 0},
			{"bob's", bob.ID, false, at(2), 1},
			{"bob's exchanged", bob.ID, true, at(2), 0},
		}
		for _, c := range cases {
			if got, err := s.CountActiveTokens(ctx(), c.account, c.exchanged, c.now); err != nil || got != c.want {
				t.Errorf("%s: CountActiveTokens = %d, %v; want %d", c.name, got, err, c.want)
			}
		}
	})

	t.Run("tokens that ended before a time are pruned, except those a version was published with", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		ended := func(name string, minute int, revoke bool) *registry.Token {
			tok := &registry.Token{AccountID: alice.ID, Name: name, Hash: tokenHash("alice/" + name), CreatedAt: t0}
			if !revoke {
				e := at(minute)
				tok.ExpiresAt = &e
			}
			if err := s.CreateToken(ctx(), tok); err != nil {
				t.Fatal(err)
			}
			if revoke {
				if err := s.RevokeToken(ctx(), alice.ID, tok.ID, at(minute)); err != nil {
					t.Fatal(err)
				}
			}
			return tok
		}
		gone := []*registry.Token{ended("expired long ago", 10, false), ended("revoked long ago", 10, true)}
		kept := []*registry.Token{ended("expired lately", 100, false), ended("revoked lately", 100, true),
			createToken(t, s, alice, "active", t0), ended("published with", 10, false)}
		in := input(alice, "widget", "1.0.0", "a", at(1))
		in.PublisherID, in.TokenID = alice.ID, kept[3].ID
		widget := publish(t, s, in)
		for i := range 3 {
			ended(fmt.Sprintf("more expired long ago %d", i), 20, false)
		}

		// Two at a time, until none is left.
		var total int64
		for {
			n, err := s.PruneTokens(ctx(), at(50), 2)
			if err != nil || n > 2 {
				t.Fatalf("PruneTokens = %d, %v", n, err)
			}
			if total += n; n == 0 {
				break
			}
		}
		if total != 5 {
			t.Errorf("PruneTokens deleted %d tokens, want 5", total)
		}
		for _, tok := range gone {
			wantCode(t, "TokenByID of "+tok.Name, errOf(s.TokenByID(ctx(), tok.ID)), registry.NotFound)
		}
		for _, tok := range kept {
			if _, err := s.TokenByID(ctx(), tok.ID); err != nil {
				t.Errorf("%s was pruned: %v", tok.Name, err)
			}
		}
		if vs := listVersions(t, s, widget.ID); vs[0].TokenID != kept[3].ID {
			t.Errorf("the version's token is %d, want %d", vs[0].TokenID, kept[3].ID)
		}
	})

	t.Run("an exchanged token is stored in the transaction that spends its jti", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		const issuer = "https://token.actions.githubusercontent.com"
		spend := func(jti string) registry.JTISpend {
			return registry.JTISpend{Issuer: issuer, JTI: jti, ExpiresAt: at(60), Now: at(1)}
		}
		exchanged := func(account int64, name string) *registry.Token {
			e := at(16)
			return &registry.Token{AccountID: account, Name: name, Hash: tokenHash("ci/" + name), CreatedAt: at(1), ExpiresAt: &e,
				CI: &registry.CIIdentity{Issuer: issuer, Repository: "alice/widget"}}
		}
		first := exchanged(alice.ID, "first")
		if err := registry.CreateExchangedToken(ctx(), s, first, spend("jti-1")); err != nil || first.ID == 0 {
			t.Fatalf("CreateExchangedToken = %v, id %d", err, first.ID)
		}
		// The jti again: refused, and no token stored.
		err := registry.CreateExchangedToken(ctx(), s, exchanged(alice.ID, "replay"), spend("jti-1"))
		if !errors.Is(err, registry.ErrJTIReused) {
			t.Errorf("the same jti again: %v, want ErrJTIReused", err)
		}
		if _, err := tokenByHash(t, s, tokenHash("ci/replay")); !registry.IsCode(err, registry.NotFound) {
			t.Errorf("the replay's token was stored: %v", err)
		}
		// A token that cannot be stored leaves its jti unspent.
		err = registry.CreateExchangedToken(ctx(), s, exchanged(alice.ID+1000, "orphan"), spend("jti-2"))
		wantCode(t, "an exchanged token of no account", err, registry.NotFound)
		second := exchanged(alice.ID, "second")
		if err := registry.CreateExchangedToken(ctx(), s, second, spend("jti-2")); err != nil {
			t.Errorf("jti-2, after its first token failed: %v; want it unspent", err)
		}
		dup := exchanged(alice.ID, "dup")
		dup.Hash = second.Hash
		wantCode(t, "a token hash stored already", registry.CreateExchangedToken(ctx(), s, dup, spend("jti-3")), registry.Conflict)
		if err := registry.SpendJTI(ctx(), s, spend("jti-3")); err != nil {
			t.Errorf("jti-3, after its token failed: %v; want it unspent", err)
		}
		if n, err := s.CountActiveTokens(ctx(), alice.ID, true, at(2)); err != nil || n != 2 {
			t.Errorf("CountActiveTokens(exchanged) = %d, %v; want 2", n, err)
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
