package sqlstore_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// What older pactd stored of a signed version: the fingerprint, timestamp,
// nonce and signature, but neither the signed lines nor the public key; and
// its nonces by key id.
const (
	oldKeepKey     = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKeep"
	oldKeepFP      = "SHA256:keep0000000000000000000000000000000000000"
	oldGoneFP      = "SHA256:gone0000000000000000000000000000000000000"
	oldNonce       = "old-nonce-0123456789"
	oldOrphanNonce = "old-nonce-orphan-0123"
	oldSignature   = "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n"
)

var oldDocs = []string{"# signed by a key still registered\n", "# signed by a key deleted since\n"}

// wantOlderVersions checks what a store answers about the versions stored
// before the signed lines were kept: lines unknown, the public key known
// where its fingerprint is still registered, and the old nonce still spent
// under that key's fingerprint, also after the key is deleted.
func wantOlderVersions(t *testing.T, s *sqlstore.Store) {
	t.Helper()
	ctx := context.Background()
	for i, c := range []struct {
		version, fingerprint, publicKey string
	}{{"1.0.0", oldKeepFP, oldKeepKey}, {"1.1.0", oldGoneFP, ""}} {
		doc, err := s.VersionDocument(ctx, "alice", "old", c.version)
		if err != nil {
			t.Fatalf("VersionDocument %s: %v", c.version, err)
		}
		p := doc.Provenance
		if p == nil || p.SignedLinesKnown || p.SignedName != "" || p.SignedDescription != "" {
			t.Errorf("version %s: provenance %+v, want the signed lines unknown", c.version, p)
			continue
		}
		if p.Fingerprint != c.fingerprint || p.PublicKey != c.publicKey || p.Nonce == "" || p.Signature != oldSignature {
			t.Errorf("version %s: provenance %+v, want fingerprint %s and public key %q", c.version, p, c.fingerprint, c.publicKey)
		}
		if string(doc.Content) != oldDocs[i] {
			t.Errorf("version %s: content %q", c.version, doc.Content)
		}
	}
	alice, err := s.AccountByUsername(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := s.ListSSHKeys(ctx, alice.ID)
	if err != nil || len(keys) != 1 {
		t.Fatalf("ListSSHKeys = %+v, %v", keys, err)
	}
	if err := registry.RemoveSSHKey(ctx, s, alice.ID, keys[0].ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	again := &registry.SSHKey{AccountID: alice.ID, Name: "again", Type: "ssh-ed25519", Fingerprint: oldKeepFP, PublicKey: oldKeepKey, CreatedAt: time.Now()}
	if err := registry.CreateSSHKey(ctx, s, again, alice.Username); err != nil {
		t.Fatal(err)
	}
	content := []byte("# replay\n")
	_, _, err = registry.PublishVersion(ctx, s, registry.PublishInput{OwnerID: alice.ID, OwnerSlug: "alice", PackSlug: "old", Name: "old",
		Version: "2.0.0", Content: content, SHA256: sha(content), Now: time.Now(),
		Provenance: &registry.Provenance{KeyID: again.ID, Fingerprint: oldKeepFP, Timestamp: time.Now().Unix(), Nonce: oldNonce,
			Signature: oldSignature, SignedLinesKnown: true, PublicKey: oldKeepKey}})
	if !errors.Is(err, registry.ErrNonceReused) {
		t.Errorf("the nonce spent before the upgrade, used again after the key was registered again: %v, want ErrNonceReused", err)
	}
}

// TestMigrationKeepsOlderSignedVersionsHonest stores signed versions and a
// nonce the way the first schema did, then upgrades.
func TestMigrationKeepsOlderSignedVersionsHonest(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn := b.dsn(t)
			blob := func(s string) string {
				if b.name == "postgres" {
					return `'\x` + hex.EncodeToString([]byte(s)) + `'::bytea`
				}
				return `X'` + hex.EncodeToString([]byte(s)) + `'`
			}
			const ts = `'2026-02-03 04:05:06+00:00'`
			version := func(id int, v, fingerprint, nonce string, keyID string) string {
				doc := oldDocs[id-1]
				return fmt.Sprintf(`INSERT INTO versions (id, package_id, version, name, description, scheme, sha256, size, content, created_at,
key_id, key_fingerprint, signed_timestamp, nonce, signature) VALUES (%d, 1, '%s', 'Old', 'Derived description', '', '%s', %d, %s, %s,
%s, '%s', 1770091506, '%s', '%s')`, id, v, sha([]byte(doc)), len(doc), blob(doc), ts, keyID, fingerprint, nonce, oldSignature)
			}
			err := sqlstore.MigrateTo(context.Background(), dsn, 1,
				`INSERT INTO accounts (id, email, username, created_at) VALUES (1, 'alice@example.com', 'alice', `+ts+`)`,
				`INSERT INTO ssh_keys (id, account_id, name, type, fingerprint, public_key, created_at)
VALUES (1, 1, 'laptop', 'ssh-ed25519', '`+oldKeepFP+`', '`+oldKeepKey+`', `+ts+`)`,
				`INSERT INTO packages (id, owner_id, pack_slug, name, version, sha256, latest_version_id, created_at, updated_at)
VALUES (1, 1, 'old', 'Old', '1.1.0', '`+sha([]byte(oldDocs[1]))+`', 2, `+ts+`, `+ts+`)`,
				version(1, "1.0.0", oldKeepFP, oldNonce, "1"),
				version(2, "1.1.0", oldGoneFP, oldOrphanNonce, "NULL"),
				`INSERT INTO nonces (key_id, nonce, spent_at) VALUES (1, '`+oldNonce+`', `+ts+`)`,
			)
			if err != nil {
				t.Fatalf("storing rows under the first schema: %v", err)
			}
			s := open(t, dsn, sqlstore.Options{LogBackfill: registry.Backfill()})
			wantOlderVersions(t, s)
		})
	}
}

// TestRestoreReadsFormatVersion1 loads a dump written by an older pactd:
// it restores as the same data upgraded in place would be.
func TestRestoreReadsFormatVersion1(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	version := func(id int, v, fingerprint, nonce, keyID string) string {
		doc := oldDocs[id-1]
		return fmt.Sprintf(`{"type":"version","id":%d,"package_id":1,"version":"%s","name":"Old","description":"Derived description","scheme":"","sha256":"%s","size":%d,"content":"%s","created_at":"2026-02-03T04:05:06Z","key_id":%s,"key_fingerprint":"%s","signed_timestamp":1770091506,"nonce":"%s","signature":%s}`,
			id, v, sha([]byte(doc)), len(doc), b64([]byte(doc)), keyID, fingerprint, nonce, q(oldSignature))
	}
	v1 := strings.Join([]string{
		`{"format":"pact-dump","version":1,"created_at":"2026-02-03T05:00:00Z","source":"sqlite"}`,
		`{"type":"account","id":1,"email":"alice@example.com","username":"alice","password_hash":"","created_at":"2026-02-03T04:05:06Z"}`,
		`{"type":"ssh_key","id":1,"account_id":1,"name":"laptop","key_type":"ssh-ed25519","fingerprint":"` + oldKeepFP + `","public_key":"` + oldKeepKey + `","created_at":"2026-02-03T04:05:06Z","last_used_at":null}`,
		`{"type":"package","id":1,"owner_id":1,"pack_slug":"old","name":"Old","description":"","scheme":"","version":"1.1.0","sha256":"` + sha([]byte(oldDocs[1])) + `","latest_version_id":2,"created_at":"2026-02-03T04:05:06Z","updated_at":"2026-02-03T04:05:06Z"}`,
		version(1, "1.0.0", oldKeepFP, oldNonce, "1"),
		version(2, "1.1.0", oldGoneFP, oldOrphanNonce, "null"),
		`{"type":"nonce","key_id":1,"nonce":"` + oldNonce + `","spent_at":"2026-02-03T04:05:06Z"}`,
		`{"type":"end","counts":{"accounts":1,"tokens":0,"ssh_keys":1,"packages":1,"versions":2,"nonces":1,"sessions":0}}`,
	}, "\n") + "\n"

	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			s := open(t, b.dsn(t), sqlstore.Options{LogBackfill: registry.Backfill()})
			counts, err := s.Restore(context.Background(), strings.NewReader(v1))
			if err != nil {
				t.Fatalf("Restore of a version 1 dump: %v", err)
			}
			if want := (sqlstore.BackupCounts{Accounts: 1, SSHKeys: 1, Packages: 1, Versions: 2, Nonces: 1}); counts != want {
				t.Errorf("counts %s, want %s", counts, want)
			}
			// Dumped again, it is a current dump: the nonce under its
			// fingerprint, the versions with their new fields.
			again := dump(t, s)
			for _, want := range []string{`"version":3`, `{"type":"nonce","fingerprint":"` + oldKeepFP + `","nonce":"` + oldNonce + `"`,
				`"signed_name":null,"signed_description":null,"public_key":"` + oldKeepKey + `"`,
				`"signed_name":null,"signed_description":null,"public_key":null`} {
				if !bytes.Contains(again, []byte(want)) {
					t.Errorf("the dump after restoring version 1 lacks %s:\n%s", want, again)
				}
			}
			// A dump from before the log: the log is built from it as the
			// migration builds it, its two versions and one key, then the
			// package's first pack-state entry, as migration 0024 appends it.
			if st, err := s.LogState(context.Background()); err != nil || st.Entries != 4 {
				entries, _ := s.LogEntries(context.Background(), 0, st.Entries)
				t.Errorf("the log after restoring version 1: %+v, %v; want 4 entries: %q", st, err, entries)
			} else if last, _ := s.LogEntries(context.Background(), 3, 4); !bytes.Contains(last[0], []byte("kind pack-state\ntime ")) ||
				!bytes.HasSuffix(last[0], []byte("\nowner alice\npack old\nlatest 1.1.0\n")) {
				t.Errorf("the log's last entry after restoring version 1:\n%s\nwant the package's state", last[0])
			}
			wantOlderVersions(t, s)
		})
	}

	t.Run("refuses fields of later versions", func(t *testing.T) {
		s := open(t, backends[0].dsn(t), sqlstore.Options{})
		bad := strings.Replace(v1, `"signature":`, `"signed_name":"x","signature":`, 1)
		_, err := s.Restore(context.Background(), strings.NewReader(bad))
		if registry.ErrorCode(err) != registry.Invalid || !strings.Contains(err.Error(), "not part of format version 1") {
			t.Errorf("Restore of a version 1 dump with signed_name: %v", err)
		}
	})
	t.Run("refuses a nonce of a key it does not hold", func(t *testing.T) {
		s := open(t, backends[0].dsn(t), sqlstore.Options{})
		bad := strings.Replace(v1, `{"type":"nonce","key_id":1`, `{"type":"nonce","key_id":7`, 1)
		_, err := s.Restore(context.Background(), strings.NewReader(bad))
		if registry.ErrorCode(err) != registry.Invalid || !strings.Contains(err.Error(), "SSH key 7") {
			t.Errorf("Restore of a version 1 dump with a nonce of a missing key: %v", err)
		}
		if n := strings.Count(records(t, dump(t, s)), "\n"); n != 2 { // the log state and the end record
			t.Errorf("a refused restore left rows behind:\n%s", dump(t, s))
		}
	})
}
