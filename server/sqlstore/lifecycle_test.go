package sqlstore_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// A dump of format version 2 (before yanks and deprecations) restores with
// nothing yanked or deprecated, and dumps again as version 3; a version 2
// file that holds the new fields is refused.
func TestRestoreReadsFormatVersion2WithNothingYanked(t *testing.T) {
	doc := "# Old\n\n```yaml pact:pack\nname: Old\nversion: 1.0.0\n```\n"
	v2 := strings.Join([]string{
		`{"format":"pact-dump","version":2,"created_at":"2026-02-03T05:00:00Z","source":"postgres"}`,
		`{"type":"account","id":1,"email":"alice@example.com","username":"alice","password_hash":"","created_at":"2026-02-03T04:05:06Z"}`,
		`{"type":"package","id":1,"owner_id":1,"pack_slug":"old","name":"Old","description":"","scheme":"","version":"1.0.0","sha256":"` + sha([]byte(doc)) + `","latest_version_id":1,"created_at":"2026-02-03T04:05:06Z","updated_at":"2026-02-03T04:05:06Z"}`,
		fmt.Sprintf(`{"type":"version","id":1,"package_id":1,"version":"1.0.0","name":"Old","description":"","scheme":"","sha256":"%s","size":%d,"content":"%s","created_at":"2026-02-03T04:05:06Z","key_id":null,"key_fingerprint":null,"signed_timestamp":null,"nonce":null,"signature":null,"signed_name":null,"signed_description":null,"public_key":null}`,
			sha([]byte(doc)), len(doc), base64.StdEncoding.EncodeToString([]byte(doc))),
		`{"type":"end","counts":{"accounts":1,"tokens":0,"ssh_keys":0,"packages":1,"versions":1,"nonces":0,"sessions":0}}`,
	}, "\n") + "\n"

	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s := open(t, b.dsn(t), sqlstore.Options{LogBackfill: registry.Backfill()})
			if _, err := s.Restore(ctx, strings.NewReader(v2)); err != nil {
				t.Fatalf("Restore of a version 2 dump: %v", err)
			}
			p, err := s.PackageBySlug(ctx, "alice", "old")
			if err != nil || p.Deprecated != "" || p.TrustedPublishingOnly || p.Version != "1.0.0" {
				t.Errorf("restored package %+v, %v; want 1.0.0, not deprecated, not trusted publishing only", p, err)
			}
			v, err := s.VersionDocument(ctx, "alice", "old", "1.0.0")
			if err != nil || v.Yanked() || v.YankReason != "" {
				t.Errorf("restored version %+v, %v; want it not yanked", v, err)
			}
			again := string(dump(t, s))
			for _, want := range []string{`"version":3`, `"deprecated":""`, `"yanked_at":null,"yank_reason":""`} {
				if !strings.Contains(again, want) {
					t.Errorf("the dump after restoring version 2 lacks %s:\n%s", want, again)
				}
			}
		})
	}

	for _, c := range []struct{ name, from, to string }{
		{"yank_reason", `"public_key":null}`, `"public_key":null,"yank_reason":"x"}`},
		{"yanked_at", `"public_key":null}`, `"public_key":null,"yanked_at":"2026-02-03T04:05:06Z"}`},
		{"deprecated", `"updated_at":"2026-02-03T04:05:06Z"}`, `"updated_at":"2026-02-03T04:05:06Z","deprecated":"x"}`},
		{"trusted_publishing_only", `"updated_at":"2026-02-03T04:05:06Z"}`, `"updated_at":"2026-02-03T04:05:06Z","trusted_publishing_only":true}`},
	} {
		t.Run("refuses "+c.name, func(t *testing.T) {
			s := open(t, backends[0].dsn(t), sqlstore.Options{})
			_, err := s.Restore(context.Background(), strings.NewReader(strings.Replace(v2, c.from, c.to, 1)))
			if registry.ErrorCode(err) != registry.Invalid || !strings.Contains(err.Error(), "not part of format version 2") {
				t.Errorf("Restore of a version 2 dump with %s: %v", c.name, err)
			}
			if n := strings.Count(records(t, dump(t, s)), "\n"); n != 2 { // the log state and the end record
				t.Errorf("a refused restore left rows behind:\n%s", dump(t, s))
			}
		})
	}
}
