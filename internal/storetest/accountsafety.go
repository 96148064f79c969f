package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

// newSession stores a session of owner made at minute, expiring a day later.
func newSession(t *testing.T, s registry.Store, owner *registry.Account, cookie string, minute int) *registry.Session {
	t.Helper()
	sess := &registry.Session{AccountID: owner.ID, Hash: tokenHash(cookie), CreatedAt: at(minute), ExpiresAt: at(minute + 60*24),
		UserAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0 " + cookie, IP: "192.0.2.7"}
	if err := registry.CreateSession(ctx(), s, sess); err != nil {
		t.Fatalf("CreateSession(%s): %v", cookie, err)
	}
	return sess
}

func sessionIDs(list []registry.Session) []int64 {
	ids := make([]int64, len(list))
	for i, s := range list {
		ids[i] = s.ID
	}
	return ids
}

func (su suite) testAccountSafety(t *testing.T) {
	t.Run("a session keeps its browser, address and last seen time", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		sess := &registry.Session{AccountID: alice.ID, Hash: tokenHash("cookie"), CreatedAt: t0.In(cet), ExpiresAt: at(60),
			UserAgent: "Mozilla/5.0 Gecko Firefox/128.0 — ünïcode", IP: "2001:db8::1"}
		if err := registry.CreateSession(ctx(), s, sess); err != nil {
			t.Fatalf("CreateSession: %v", err)
		}
		got, err := s.SessionByHash(ctx(), tokenHash("cookie"), t0)
		if err != nil {
			t.Fatalf("SessionByHash: %v", err)
		}
		if got.UserAgent != sess.UserAgent || got.IP != "2001:db8::1" {
			t.Errorf("SessionByHash = %q from %q, want %q from 2001:db8::1", got.UserAgent, got.IP, sess.UserAgent)
		}
		wantTime(t, "LastSeenAt of a new session", got.LastSeenAt, t0)
		if err := s.TouchSession(ctx(), sess.ID, at(5).In(cet)); err != nil {
			t.Fatalf("TouchSession: %v", err)
		}
		got, err = s.SessionByHash(ctx(), tokenHash("cookie"), at(6))
		if err != nil {
			t.Fatalf("SessionByHash after TouchSession: %v", err)
		}
		wantTime(t, "LastSeenAt after TouchSession", got.LastSeenAt, at(5))
		wantTime(t, "CreatedAt after TouchSession", got.CreatedAt, t0)
		wantCode(t, "TouchSession of a missing session", s.TouchSession(ctx(), sess.ID+1000, at(7)), registry.NotFound)
	})

	t.Run("sessions are listed per account, most recently seen first, unexpired, bounded", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		first := newSession(t, s, alice, "first", 0)
		second := newSession(t, s, alice, "second", 1)
		third := newSession(t, s, alice, "third", 2)
		newSession(t, s, bob, "bobs", 3)
		if err := s.TouchSession(ctx(), first.ID, at(10)); err != nil {
			t.Fatal(err)
		}
		list, err := s.ListSessions(ctx(), alice.ID, at(11), 10)
		if err != nil {
			t.Fatalf("ListSessions: %v", err)
		}
		if got, want := fmt.Sprint(sessionIDs(list)), fmt.Sprint([]int64{first.ID, third.ID, second.ID}); got != want {
			t.Errorf("ListSessions = %s, want %s (by last seen, newest first; bob's left out)", got, want)
		}
		if len(list) > 0 && (list[0].UserAgent != first.UserAgent || list[0].IP != "192.0.2.7") {
			t.Errorf("listed session %+v lacks its browser or address", list[0])
		}
		if list, _ := s.ListSessions(ctx(), alice.ID, at(11), 2); len(list) != 2 {
			t.Errorf("ListSessions with limit 2 = %d sessions", len(list))
		}
		// second expires at minute 1+1440, third at 2+1440.
		list, err = s.ListSessions(ctx(), alice.ID, at(2+60*24), 10)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fmt.Sprint(sessionIDs(list)), fmt.Sprint([]int64{}); got != want {
			t.Errorf("ListSessions after every session expired = %s, want %s", got, want)
		}
		list, _ = s.ListSessions(ctx(), alice.ID, at(1+60*24), 10)
		if got, want := fmt.Sprint(sessionIDs(list)), fmt.Sprint([]int64{third.ID}); got != want {
			t.Errorf("ListSessions after two expired = %s, want %s", got, want)
		}
	})

	t.Run("one session of an account is deleted by id, not another account's", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		one, two := newSession(t, s, alice, "one", 0), newSession(t, s, alice, "two", 1)
		bobs := newSession(t, s, bob, "bobs", 2)
		if err := s.DeleteAccountSession(ctx(), alice.ID, one.ID); err != nil {
			t.Fatalf("DeleteAccountSession: %v", err)
		}
		wantCode(t, "SessionByHash of the deleted session", errOf(s.SessionByHash(ctx(), one.Hash, at(3))), registry.NotFound)
		if _, err := s.SessionByHash(ctx(), two.Hash, at(3)); err != nil {
			t.Errorf("the other session went too: %v", err)
		}
		wantCode(t, "DeleteAccountSession of bob's session as alice", s.DeleteAccountSession(ctx(), alice.ID, bobs.ID), registry.NotFound)
		if _, err := s.SessionByHash(ctx(), bobs.Hash, at(3)); err != nil {
			t.Errorf("alice ended bob's session: %v", err)
		}
		wantCode(t, "DeleteAccountSession of a deleted session", s.DeleteAccountSession(ctx(), alice.ID, one.ID), registry.NotFound)
	})

	t.Run("every session of an account is deleted, but the one kept", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		keep := newSession(t, s, alice, "keep", 0)
		newSession(t, s, alice, "other", 1)
		newSession(t, s, alice, "third", 2)
		bobs := newSession(t, s, bob, "bobs", 3)
		n, err := s.DeleteAccountSessions(ctx(), alice.ID, keep.ID)
		if err != nil || n != 2 {
			t.Fatalf("DeleteAccountSessions except one = %d, %v; want 2", n, err)
		}
		list, _ := s.ListSessions(ctx(), alice.ID, at(4), 10)
		if got, want := fmt.Sprint(sessionIDs(list)), fmt.Sprint([]int64{keep.ID}); got != want {
			t.Errorf("after deleting all but one, alice has %s, want %s", got, want)
		}
		n, err = s.DeleteAccountSessions(ctx(), alice.ID, 0)
		if err != nil || n != 1 {
			t.Fatalf("DeleteAccountSessions of all = %d, %v; want 1", n, err)
		}
		if list, _ := s.ListSessions(ctx(), alice.ID, at(4), 10); len(list) != 0 {
			t.Errorf("after deleting all, alice has %d sessions", len(list))
		}
		if _, err := s.SessionByHash(ctx(), bobs.Hash, at(4)); err != nil {
			t.Errorf("bob's session went with alice's: %v", err)
		}
		if n, err := s.DeleteAccountSessions(ctx(), alice.ID, 0); err != nil || n != 0 {
			t.Errorf("DeleteAccountSessions with none left = %d, %v", n, err)
		}
	})

	t.Run("an account keeps at most MaxSessionsPerAccount sessions, the most recently seen", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		bobs := newSession(t, s, bob, "bobs", 0)
		oldest := newSession(t, s, alice, "oldest", 0)
		touched := newSession(t, s, alice, "touched", 0)
		for i := 2; i < registry.MaxSessionsPerAccount; i++ {
			newSession(t, s, alice, fmt.Sprint("s", i), 1)
		}
		if err := s.TouchSession(ctx(), touched.ID, at(5)); err != nil {
			t.Fatal(err)
		}
		newest := newSession(t, s, alice, "newest", 2)
		list, err := s.ListSessions(ctx(), alice.ID, at(3), registry.MaxSessionsPerAccount+10)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != registry.MaxSessionsPerAccount {
			t.Fatalf("alice has %d sessions, want %d", len(list), registry.MaxSessionsPerAccount)
		}
		wantCode(t, "the least recently seen session", errOf(s.SessionByHash(ctx(), oldest.Hash, at(3))), registry.NotFound)
		for _, kept := range []*registry.Session{touched, newest, bobs} {
			if _, err := s.SessionByHash(ctx(), kept.Hash, at(3)); err != nil {
				t.Errorf("session %d went: %v", kept.ID, err)
			}
		}
	})

	t.Run("an account is disabled and enabled again", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		if alice.DisabledAt != nil {
			t.Fatalf("a new account is disabled at %v", *alice.DisabledAt)
		}
		first := at(5).In(cet)
		if err := s.SetAccountDisabled(ctx(), alice.ID, &first); err != nil {
			t.Fatalf("SetAccountDisabled: %v", err)
		}
		later := at(9)
		if err := s.SetAccountDisabled(ctx(), alice.ID, &later); err != nil {
			t.Fatalf("SetAccountDisabled again: %v", err)
		}
		for name, get := range map[string]func() (*registry.Account, error){
			"by id":       func() (*registry.Account, error) { return s.AccountByID(ctx(), alice.ID) },
			"by username": func() (*registry.Account, error) { return s.AccountByUsername(ctx(), "alice") },
			"by email":    func() (*registry.Account, error) { return s.AccountByEmail(ctx(), "alice@example.com") },
		} {
			got, err := get()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			wantOptionalTime(t, name+": DisabledAt (the first time)", got.DisabledAt, ptr(at(5)))
		}
		if got, _ := s.AccountByID(ctx(), bob.ID); got.DisabledAt != nil {
			t.Errorf("bob is disabled too")
		}
		if err := s.SetAccountDisabled(ctx(), alice.ID, nil); err != nil {
			t.Fatalf("SetAccountDisabled(nil): %v", err)
		}
		got, _ := s.AccountByID(ctx(), alice.ID)
		wantOptionalTime(t, "DisabledAt after enabling", got.DisabledAt, nil)
		wantCode(t, "SetAccountDisabled of a missing account", s.SetAccountDisabled(ctx(), bob.ID+1000, &first), registry.NotFound)
	})

	t.Run("a password hash is replaced", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		if err := s.SetPasswordHash(ctx(), alice.ID, "$argon2id$new"); err != nil {
			t.Fatalf("SetPasswordHash: %v", err)
		}
		if got, _ := s.AccountByID(ctx(), alice.ID); got.PasswordHash != "$argon2id$new" {
			t.Errorf("PasswordHash = %q after SetPasswordHash", got.PasswordHash)
		}
		if got, _ := s.AccountByID(ctx(), bob.ID); got.PasswordHash != bob.PasswordHash {
			t.Errorf("bob's PasswordHash changed to %q", got.PasswordHash)
		}
		wantCode(t, "SetPasswordHash of a missing account", s.SetPasswordHash(ctx(), bob.ID+1000, "x"), registry.NotFound)
	})

	t.Run("accounts are listed by id in pages, with what they hold", func(t *testing.T) {
		s := su.store(t)
		alice, bob, carol := createAccount(t, s, "alice"), createAccount(t, s, "bob"), createAccount(t, s, "carol")
		createToken(t, s, alice, "active", t0)
		revoked := createToken(t, s, alice, "revoked", t0)
		if err := s.RevokeToken(ctx(), alice.ID, revoked.ID, at(1)); err != nil {
			t.Fatal(err)
		}
		expired := &registry.Token{AccountID: alice.ID, Name: "expired", Hash: tokenHash("expired"), CreatedAt: t0, ExpiresAt: ptr(at(2))}
		if err := s.CreateToken(ctx(), expired); err != nil {
			t.Fatal(err)
		}
		createKey(t, s, alice, "laptop", t0)
		publish(t, s, input(alice, "one", "1.0.0", "a", at(1)))
		publish(t, s, input(alice, "two", "1.0.0", "b", at(1)))
		newSession(t, s, alice, "session", 0)
		createToken(t, s, bob, "bobs", t0)
		if err := s.SetAccountDisabled(ctx(), bob.ID, ptr(at(3))); err != nil {
			t.Fatal(err)
		}

		page, err := s.ListAccounts(ctx(), registry.AccountFilter{Limit: 2, Now: at(10)})
		if err != nil {
			t.Fatalf("ListAccounts: %v", err)
		}
		if len(page) != 2 || page[0].ID != alice.ID || page[1].ID != bob.ID {
			t.Fatalf("first page = %+v, want alice and bob", page)
		}
		a := page[0]
		if a.Username != "alice" || a.Email != "alice@example.com" || a.ActiveTokens != 1 || a.SSHKeys != 1 || a.Packages != 2 || a.Sessions != 1 {
			t.Errorf("alice listed as %+v, want 1 active token, 1 key, 2 packages, 1 session", a)
		}
		wantTime(t, "alice's CreatedAt", a.CreatedAt, t0)
		wantOptionalTime(t, "alice's DisabledAt", a.DisabledAt, nil)
		wantOptionalTime(t, "bob's DisabledAt", page[1].DisabledAt, ptr(at(3)))
		if b := page[1]; b.ActiveTokens != 1 || b.SSHKeys != 0 || b.Packages != 0 || b.Sessions != 0 {
			t.Errorf("bob listed as %+v", b)
		}
		rest, err := s.ListAccounts(ctx(), registry.AccountFilter{AfterID: bob.ID, Limit: 2, Now: at(10)})
		if err != nil || len(rest) != 1 || rest[0].ID != carol.ID {
			t.Errorf("page after bob = %+v, %v; want carol alone", rest, err)
		}
		// A day later alice's session has expired.
		later, _ := s.ListAccounts(ctx(), registry.AccountFilter{Limit: 1, Now: t0.Add(25 * time.Hour)})
		if len(later) != 1 || later[0].Sessions != 0 {
			t.Errorf("alice's expired session still counts: %+v", later)
		}
	})
}

func errOf[T any](_ T, err error) error { return err }
