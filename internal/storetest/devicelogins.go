package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

// deviceLogin stores a login of the command line made at minute, lasting
// ten minutes, whose codes are named after code.
func deviceLogin(t *testing.T, s registry.Store, code string, minute int) *registry.DeviceLogin {
	t.Helper()
	d := &registry.DeviceLogin{DeviceHash: tokenHash("device " + code), UserHash: tokenHash("user " + code), Name: "laptop",
		UserAgent: "pact/1.0", IP: "192.0.2.1", CreatedAt: at(minute).In(cet), ExpiresAt: at(minute + 10).In(cet)}
	if err := registry.CreateDeviceLogin(ctx(), s, d, registry.MaxPendingDeviceLogins, registry.MaxPendingDeviceLoginsPerBlock); err != nil {
		t.Fatalf("CreateDeviceLogin(%s): %v", code, err)
	}
	if d.ID == 0 {
		t.Fatal("CreateDeviceLogin did not set ID")
	}
	return d
}

func (su suite) testDeviceLogins(t *testing.T) {
	grant := func() *registry.DeviceGrant {
		expires := at(60 * 24 * 30)
		return &registry.DeviceGrant{Name: "laptop (edited)", Scopes: []registry.Scope{registry.ScopePublish},
			Packages: []string{"widget-*"}, ExpiresAt: &expires}
	}
	newToken := func(owner *registry.Account, g *registry.DeviceGrant, secret string, minute int) *registry.Token {
		return &registry.Token{AccountID: owner.ID, Name: g.Name, Hash: tokenHash(secret), CreatedAt: at(minute),
			Scopes: g.Scopes, Packages: g.Packages, ExpiresAt: g.ExpiresAt}
	}

	t.Run("a login keeps the scopes it asked for", func(t *testing.T) {
		s := su.store(t)
		d := &registry.DeviceLogin{DeviceHash: tokenHash("device asks"), UserHash: tokenHash("user asks"), Name: "laptop",
			RequestedScopes: []registry.Scope{registry.ScopePublish, registry.ScopeYank}, CreatedAt: at(0), ExpiresAt: at(10)}
		if err := registry.CreateDeviceLogin(ctx(), s, d, registry.MaxPendingDeviceLogins, registry.MaxPendingDeviceLoginsPerBlock); err != nil {
			t.Fatal(err)
		}
		plain := deviceLogin(t, s, "asks for nothing", 0)
		got, err := s.PendingDeviceLogin(ctx(), d.UserHash, at(1))
		if err != nil || !slices.Equal(got.RequestedScopes, d.RequestedScopes) {
			t.Errorf("PendingDeviceLogin = %+v, %v; want the scopes asked for, %v", got, err, d.RequestedScopes)
		}
		polled, _, err := s.PollDeviceLogin(ctx(), d.DeviceHash, at(1), at(0))
		if err != nil || !slices.Equal(polled.RequestedScopes, d.RequestedScopes) {
			t.Errorf("PollDeviceLogin = %+v, %v; want the scopes asked for", polled, err)
		}
		got, err = s.PendingDeviceLogin(ctx(), plain.UserHash, at(1))
		if err != nil || got.RequestedScopes != nil {
			t.Errorf("PendingDeviceLogin of a login asking for none = %+v, %v; want RequestedScopes nil", got, err)
		}
	})

	t.Run("a login waits, is decided once and gives one token", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		bob := createAccount(t, s, "bob")
		d := deviceLogin(t, s, "one", 0)

		got, err := s.PendingDeviceLogin(ctx(), d.UserHash, at(1))
		if err != nil {
			t.Fatalf("PendingDeviceLogin: %v", err)
		}
		if got.ID != d.ID || got.Name != "laptop" || got.UserAgent != "pact/1.0" || got.IP != "192.0.2.1" ||
			got.DecidedAt != nil || got.Grant != nil || got.PolledAt != nil || got.AccountID != 0 {
			t.Errorf("PendingDeviceLogin = %+v, want the login as stored, undecided", got)
		}
		wantTime(t, "CreatedAt", got.CreatedAt, at(0))
		wantTime(t, "ExpiresAt", got.ExpiresAt, at(10))
		_, err = s.PendingDeviceLogin(ctx(), d.DeviceHash, at(1))
		wantCode(t, "PendingDeviceLogin by the device code's hash", err, registry.NotFound)

		// Polls: the first is recorded, one before since is not.
		polled, recorded, err := s.PollDeviceLogin(ctx(), d.DeviceHash, at(1), at(1).Add(-5*time.Second))
		if err != nil || !recorded || polled.DecidedAt != nil {
			t.Fatalf("first poll = %+v, %v, %v; want it recorded, undecided", polled, recorded, err)
		}
		wantOptionalTime(t, "PolledAt after the first poll", polled.PolledAt, ptr(at(1)))
		polled, recorded, err = s.PollDeviceLogin(ctx(), d.DeviceHash, at(1).Add(3*time.Second), at(1).Add(-2*time.Second))
		if err != nil || recorded {
			t.Fatalf("poll 3 s later = %v, %v; want it found and not recorded", recorded, err)
		}
		wantOptionalTime(t, "PolledAt after a poll too soon", polled.PolledAt, ptr(at(1)))
		if _, recorded, err = s.PollDeviceLogin(ctx(), d.DeviceHash, at(1).Add(5*time.Second), at(1)); err != nil || !recorded {
			t.Fatalf("poll 5 s later = %v, %v; want it recorded", recorded, err)
		}
		_, _, err = s.PollDeviceLogin(ctx(), d.UserHash, at(2), at(1))
		wantCode(t, "PollDeviceLogin by the user code's hash", err, registry.NotFound)

		// Not approved yet: nothing to exchange.
		err = s.ExchangeDeviceLogin(ctx(), d.DeviceHash, at(2), newToken(alice, grant(), "early", 2))
		wantCode(t, "ExchangeDeviceLogin before the decision", err, registry.NotFound)

		if err := s.DecideDeviceLogin(ctx(), d.UserHash, registry.DeviceDecision{AccountID: alice.ID, At: at(3).In(cet), Grant: grant()}); err != nil {
			t.Fatalf("DecideDeviceLogin: %v", err)
		}
		_, err = s.PendingDeviceLogin(ctx(), d.UserHash, at(3))
		wantCode(t, "PendingDeviceLogin once decided", err, registry.NotFound)
		err = s.DecideDeviceLogin(ctx(), d.UserHash, registry.DeviceDecision{AccountID: bob.ID, At: at(4), Grant: grant()})
		wantCode(t, "a second decision", err, registry.NotFound)

		polled, _, err = s.PollDeviceLogin(ctx(), d.DeviceHash, at(4), at(4))
		if err != nil {
			t.Fatalf("poll once approved: %v", err)
		}
		want := grant()
		if polled.AccountID != alice.ID || polled.Grant == nil || polled.Grant.Name != want.Name ||
			!slices.Equal(polled.Grant.Scopes, want.Scopes) || !slices.Equal(polled.Grant.Packages, want.Packages) {
			t.Fatalf("poll once approved = %+v (grant %+v), want alice's approval with %+v", polled, polled.Grant, want)
		}
		wantOptionalTime(t, "DecidedAt", polled.DecidedAt, ptr(at(3)))
		wantOptionalTime(t, "Grant.ExpiresAt", polled.Grant.ExpiresAt, want.ExpiresAt)

		tok := newToken(alice, polled.Grant, "the token", 4)
		if err := s.ExchangeDeviceLogin(ctx(), d.DeviceHash, at(4), tok); err != nil {
			t.Fatalf("ExchangeDeviceLogin: %v", err)
		}
		stored, holder, err := s.TokenHolder(ctx(), tokenHash("the token"))
		if err != nil || stored.ID != tok.ID || holder.ID != alice.ID || stored.Name != want.Name ||
			!slices.Equal(stored.Scopes, want.Scopes) || !slices.Equal(stored.Packages, want.Packages) {
			t.Fatalf("the exchanged token = %+v of %+v, %v", stored, holder, err)
		}
		// Once: the login is gone, and a second exchange stores nothing.
		err = s.ExchangeDeviceLogin(ctx(), d.DeviceHash, at(5), newToken(alice, want, "a second token", 5))
		wantCode(t, "a second ExchangeDeviceLogin", err, registry.NotFound)
		_, _, err = s.TokenHolder(ctx(), tokenHash("a second token"))
		wantCode(t, "the second exchange's token", err, registry.NotFound)
		_, _, err = s.PollDeviceLogin(ctx(), d.DeviceHash, at(5), at(5))
		wantCode(t, "PollDeviceLogin after the exchange", err, registry.NotFound)
	})

	t.Run("a denied login gives nothing", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		d := deviceLogin(t, s, "one", 0)
		if err := s.DecideDeviceLogin(ctx(), d.UserHash, registry.DeviceDecision{AccountID: alice.ID, At: at(1)}); err != nil {
			t.Fatalf("DecideDeviceLogin: %v", err)
		}
		polled, _, err := s.PollDeviceLogin(ctx(), d.DeviceHash, at(2), at(2))
		if err != nil || polled.DecidedAt == nil || polled.Grant != nil || polled.AccountID != alice.ID {
			t.Fatalf("poll once denied = %+v, %v; want alice's decision without a grant", polled, err)
		}
		err = s.ExchangeDeviceLogin(ctx(), d.DeviceHash, at(2), newToken(alice, grant(), "denied", 2))
		wantCode(t, "ExchangeDeviceLogin of a denied login", err, registry.NotFound)
		err = s.DecideDeviceLogin(ctx(), d.UserHash, registry.DeviceDecision{AccountID: alice.ID, At: at(3), Grant: grant()})
		wantCode(t, "approving a denied login", err, registry.NotFound)
	})

	t.Run("an expired login can be neither decided nor exchanged, and is pruned", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		waiting := deviceLogin(t, s, "waiting", 0)
		approved := deviceLogin(t, s, "approved", 0)
		later := deviceLogin(t, s, "later", 5)
		if err := s.DecideDeviceLogin(ctx(), approved.UserHash, registry.DeviceDecision{AccountID: alice.ID, At: at(9), Grant: grant()}); err != nil {
			t.Fatalf("DecideDeviceLogin: %v", err)
		}
		_, err := s.PendingDeviceLogin(ctx(), waiting.UserHash, at(10))
		wantCode(t, "PendingDeviceLogin at expiry", err, registry.NotFound)
		err = s.DecideDeviceLogin(ctx(), waiting.UserHash, registry.DeviceDecision{AccountID: alice.ID, At: at(10), Grant: grant()})
		wantCode(t, "DecideDeviceLogin at expiry", err, registry.NotFound)
		err = s.ExchangeDeviceLogin(ctx(), approved.DeviceHash, at(10), newToken(alice, grant(), "late", 10))
		wantCode(t, "ExchangeDeviceLogin at expiry", err, registry.NotFound)
		// Still read by its poll, so the domain can say it expired.
		if polled, _, err := s.PollDeviceLogin(ctx(), waiting.DeviceHash, at(10), at(10)); err != nil || polled.ID != waiting.ID {
			t.Fatalf("poll of the expired login = %+v, %v", polled, err)
		}

		n, err := s.PruneDeviceLogins(ctx(), at(10))
		if err != nil || n != 2 {
			t.Fatalf("PruneDeviceLogins = %d, %v; want the 2 expired", n, err)
		}
		for _, d := range []*registry.DeviceLogin{waiting, approved} {
			_, _, err := s.PollDeviceLogin(ctx(), d.DeviceHash, at(11), at(11))
			wantCode(t, "PollDeviceLogin after the prune", err, registry.NotFound)
		}
		if _, err := s.PendingDeviceLogin(ctx(), later.UserHash, at(10)); err != nil {
			t.Errorf("the login that had not expired went with the prune: %v", err)
		}
	})

	t.Run("the logins waiting are bounded per block, and a full table makes the fullest block give way", func(t *testing.T) {
		s := su.store(t)
		login := func(name, block string, minute int) (*registry.DeviceLogin, error) {
			d := &registry.DeviceLogin{DeviceHash: tokenHash("device " + name), UserHash: tokenHash("user " + name),
				Name: "laptop", Block: block, CreatedAt: at(minute), ExpiresAt: at(minute + 10)}
			return d, registry.CreateDeviceLogin(ctx(), s, d, 4, 3)
		}
		var flood []*registry.DeviceLogin
		for i := range 3 {
			d, err := login(fmt.Sprint("flood ", i), "198.51.100.0/24", i)
			if err != nil {
				t.Fatalf("login %d of 3 from a block: %v", i+1, err)
			}
			flood = append(flood, d)
		}
		if _, err := login("flood 3", "198.51.100.0/24", 3); !errors.Is(err, registry.ErrDeviceLoginsBlockFull) {
			t.Fatalf("login 4 of 3 from a block: %v, want ErrDeviceLoginsBlockFull", err)
		}
		other, err := login("other", "203.0.113.0/24", 3)
		if err != nil {
			t.Fatalf("a login from another block: %v", err)
		}
		// The table holds 4 of 4: a login from a third block starts, and
		// the oldest of the fullest block gives way.
		if _, err := login("third", "2001:db8:1::/48", 4); err != nil {
			t.Fatalf("a login from a third block with the table full: %v", err)
		}
		if _, err := s.PendingDeviceLogin(ctx(), flood[0].UserHash, at(5)); !registry.IsCode(err, registry.NotFound) {
			t.Errorf("the oldest login of the fullest block is still waiting: %v", err)
		}
		for _, d := range []*registry.DeviceLogin{flood[1], flood[2], other} {
			if _, err := s.PendingDeviceLogin(ctx(), d.UserHash, at(5)); err != nil {
				t.Errorf("login %d went, not the oldest of the fullest block: %v", d.ID, err)
			}
		}
		// Logins that expired count no more, pruned or not.
		for i := range 3 {
			if _, err := login(fmt.Sprint("later ", i), "198.51.100.0/24", 20); err != nil {
				t.Fatalf("a login once the others expired: %v", err)
			}
		}
	})

	t.Run("a code's hash is stored once", func(t *testing.T) {
		s := su.store(t)
		d := deviceLogin(t, s, "one", 0)
		for _, clash := range []*registry.DeviceLogin{
			{DeviceHash: d.DeviceHash, UserHash: tokenHash("other user code"), Name: "x", CreatedAt: at(1), ExpiresAt: at(11)},
			{DeviceHash: tokenHash("other device code"), UserHash: d.UserHash, Name: "x", CreatedAt: at(1), ExpiresAt: at(11)},
		} {
			wantCode(t, "CreateDeviceLogin with a stored hash", registry.CreateDeviceLogin(ctx(), s, clash, registry.MaxPendingDeviceLogins, registry.MaxPendingDeviceLoginsPerBlock), registry.Conflict)
		}
	})

	t.Run("a decision is by an account that exists", func(t *testing.T) {
		s := su.store(t)
		d := deviceLogin(t, s, "one", 0)
		err := s.DecideDeviceLogin(ctx(), d.UserHash, registry.DeviceDecision{AccountID: 999, At: at(1), Grant: grant()})
		wantCode(t, "DecideDeviceLogin by a missing account", err, registry.NotFound)
		if _, err := s.PendingDeviceLogin(ctx(), d.UserHash, at(1)); err != nil {
			t.Errorf("a refused decision was recorded: %v", err)
		}
	})
}
