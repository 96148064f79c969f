// Package storetest is the conformance suite of registry.Store: every store
// implementation runs Run against a real database. It also gives other test
// packages fresh databases (SQLiteDSN, PostgresURL).
package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

// Run checks that stores made by open behave as registry.Store documents.
// open must return a new, empty store each time it is called; it is called
// from parallel subtests. Run closes every store it opens.
func Run(t *testing.T, open func(t *testing.T) registry.Store) {
	s := suite{open: open}
	t.Run("Ping", s.testPing)
	t.Run("Accounts", s.testAccounts)
	t.Run("Tokens", s.testTokens)
	t.Run("TokenScopes", s.testTokenScopes)
	t.Run("SSHKeys", s.testSSHKeys)
	t.Run("Publish", s.testPublish)
	t.Run("Nonces", s.testNonces)
	t.Run("NoncesByFingerprint", s.testNoncesByFingerprint)
	t.Run("ConcurrentPublish", s.testConcurrentPublish)
	t.Run("ListPackages", s.testListPackages)
	t.Run("Lifecycle", s.testLifecycle)
	t.Run("TrustedPublishingOnly", s.testTrustedPublishingOnly)
	t.Run("RawDocument", s.testRawDocument)
	t.Run("Documents", s.testDocuments)
	t.Run("TilesOnBlobStore", s.testTilesOnBlobStore)
	t.Run("CountPackages", s.testCountPackages)
	t.Run("Search", s.testSearch)
	t.Run("SuggestSlugs", s.testSuggestSlugs)
	t.Run("Relevance", s.testRelevance)
	t.Run("Sessions", s.testSessions)
	t.Run("DeviceLogins", s.testDeviceLogins)
	t.Run("Passkeys", s.testPasskeys)
	t.Run("Hooks", s.testHooks)
	t.Run("AccountSafety", s.testAccountSafety)
	t.Run("Log", s.testLog)
	t.Run("Witnesses", s.testWitnesses)
	t.Run("TrustedPublishers", s.testTrustedPublishers)
	t.Run("Releases", s.testReleases)
	t.Run("Orgs", s.testOrgs)
	t.Run("Grants", s.testGrants)
	t.Run("Given", s.testGiven)
}

type suite struct {
	open func(t *testing.T) registry.Store
}

// store opens a fresh store for one parallel test.
func (su suite) store(t *testing.T) registry.Store {
	t.Helper()
	t.Parallel()
	s := su.open(t)
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func (su suite) testPing(t *testing.T) {
	s := su.store(t)
	if err := s.Ping(context.Background()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

// t0 is the suite's clock: every time the stores see comes from here.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// cet is a zone other than UTC, to check that stores hand times back in UTC.
var cet = time.FixedZone("CET", 3600)

func at(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }

func ctx() context.Context { return context.Background() }

func createAccount(t *testing.T, s registry.Store, username string) *registry.Account {
	t.Helper()
	a := &registry.Account{
		Email:        username + "@example.com",
		Username:     username,
		PasswordHash: "$argon2id$v=19$m=65536,t=1,p=4$" + username,
		CreatedAt:    t0,
	}
	if err := s.CreateAccount(ctx(), a); err != nil {
		t.Fatalf("CreateAccount(%s): %v", username, err)
	}
	return a
}

// fingerprint makes a distinct fingerprint in ssh-keygen's format.
func fingerprint(seed string) string {
	sum := sha256.Sum256([]byte(seed))
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])
}

func createKey(t *testing.T, s registry.Store, owner *registry.Account, name string, created time.Time) *registry.SSHKey {
	t.Helper()
	k := &registry.SSHKey{
		AccountID:   owner.ID,
		Name:        name,
		Type:        "ssh-ed25519",
		Fingerprint: fingerprint(owner.Username + "/" + name),
		PublicKey:   "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + hex.EncodeToString([]byte(name)),
		CreatedAt:   created,
	}
	if err := registry.CreateSSHKey(ctx(), s, k, owner.Username); err != nil {
		t.Fatalf("CreateSSHKey(%s): %v", name, err)
	}
	return k
}

func sha(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

// document is a small pack document; body makes contents differ.
func document(name, version, body string) string {
	return "# " + name + "\n\n```yaml pact:pack\nname: " + name + "\nversion: " + version + "\n```\n\n" + body + "\n"
}

// input is a token publish of owner/pack at version, published at now.
func input(owner *registry.Account, pack, version, body string, now time.Time) registry.PublishInput {
	content := document(pack, version, body)
	return registry.PublishInput{
		OwnerID:     owner.ID,
		OwnerSlug:   owner.Username,
		PackSlug:    pack,
		Name:        pack,
		Description: "The " + pack + " pack",
		Scheme:      "skill",
		Version:     version,
		Content:     []byte(content),
		SHA256:      sha(content),
		Now:         now,
	}
}

// signed adds provenance to in, as a signed publish with key and nonce.
func signed(in registry.PublishInput, key *registry.SSHKey, nonce string) registry.PublishInput {
	in.Provenance = &registry.Provenance{
		KeyID:       key.ID,
		Fingerprint: key.Fingerprint,
		Timestamp:   in.Now.Unix(),
		Nonce:       nonce,
		Signature:   "-----BEGIN SSH SIGNATURE-----\n" + nonce + "\n-----END SSH SIGNATURE-----\n",
		// As a client that sends no name and no description signs: empty
		// lines, while the stored name and description come from the
		// document.
		SignedLinesKnown: true,
		PublicKey:        key.PublicKey,
	}
	return in
}

func publish(t *testing.T, s registry.Store, in registry.PublishInput) *registry.Package {
	t.Helper()
	pkg, created, err := registry.PublishVersion(ctx(), s, in)
	if err != nil {
		t.Fatalf("Publish(%s/%s@%s): %v", in.OwnerSlug, in.PackSlug, in.Version, err)
	}
	if !created {
		t.Fatalf("Publish(%s/%s@%s): created = false for a new version", in.OwnerSlug, in.PackSlug, in.Version)
	}
	return pkg
}

// wantCode fails unless err is a *registry.Error with code.
func wantCode(t *testing.T, what string, err error, code registry.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %s", what, code)
	}
	var rerr *registry.Error
	if !errors.As(err, &rerr) || rerr.Code != code {
		t.Fatalf("%s: error %q (code %s), want code %s", what, err, registry.ErrorCode(err), code)
	}
}

// wantMessage fails unless err's user-facing message contains every part.
func wantMessage(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	msg := registry.ErrorMessage(err)
	for _, part := range parts {
		if !strings.Contains(msg, part) {
			t.Errorf("%s: message %q does not mention %q", what, msg, part)
		}
	}
}

// wantTime fails unless got is the instant want, in UTC.
func wantTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if !got.Equal(want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
	if got.Location() != time.UTC {
		t.Errorf("%s is in %v, want UTC", what, got.Location())
	}
}

// wantOptionalTime is wantTime for nullable times.
func wantOptionalTime(t *testing.T, what string, got, want *time.Time) {
	t.Helper()
	switch {
	case want == nil && got != nil:
		t.Errorf("%s = %v, want none", what, *got)
	case want != nil && got == nil:
		t.Errorf("%s is missing, want %v", what, *want)
	case want != nil:
		wantTime(t, what, *got, *want)
	}
}

func ptr[T any](v T) *T { return &v }
