package sqlstore_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// oddDocuments are documents whose bytes a careless backup would change: a
// byte-order mark, CRLF line ends, NUL and other control bytes, trailing
// spaces, bytes that are not UTF-8 (the store keeps whatever it is given).
var oddDocuments = []string{
	"\ufeff# BOM\r\n\r\n```yaml pact:pack\r\nname: odd\r\nversion: 1.0.0\r\n```\r\n",
	"# nul \x00 and bell \a and tab \t and trailing spaces   \n\n\n",
	"# not UTF-8: \xff\xfe\xc3\x28 end",
	"# unicode: żółć 🐚 \u2028 \u200b\n",
}

func sha(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// populate fills s with every kind of row, including NULL and non-NULL
// optional columns, a signed version whose key was deleted since, and a
// package whose versions were published out of order.
func populate(t *testing.T, s *sqlstore.Store) {
	t.Helper()
	ctx := context.Background()
	base := time.Date(2026, 2, 3, 4, 5, 6, 789123000, time.UTC)
	at := func(minutes int) time.Time { return base.Add(time.Duration(minutes) * time.Minute) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	alice := &registry.Account{Email: "Alice@Example.com", Username: "alice", PasswordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA", CreatedAt: at(0)}
	bob := &registry.Account{Email: "bob@example.com", Username: "bob", CreatedAt: at(1)}
	must(s.CreateAccount(ctx, alice))
	must(s.CreateAccount(ctx, bob))

	expires, revoked, used := at(60*24), at(30), at(20)
	tokens := []*registry.Token{
		{AccountID: alice.ID, Name: "laptop", CreatedAt: at(2)},
		{AccountID: alice.ID, Name: "ci", CreatedAt: at(3), ExpiresAt: &expires, LastUsedAt: &used,
			Scopes: []registry.Scope{registry.ScopePublish, registry.ScopeYank}, Packages: []string{"widget-*", "gadget"}},
		{AccountID: alice.ID, Name: "read-only", CreatedAt: at(3), Scopes: []registry.Scope{}},
		{AccountID: bob.ID, Name: "old", CreatedAt: at(4), RevokedAt: &revoked},
	}
	for i, tok := range tokens {
		tok.Hash = bytes.Repeat([]byte{byte(i), 0x00, 0xff}, 11)[:32]
		must(s.CreateToken(ctx, tok))
	}

	keep := &registry.SSHKey{AccountID: alice.ID, Name: "work", Type: "ssh-ed25519", Fingerprint: "SHA256:keep", PublicKey: "ssh-ed25519 AAAAkeep", CreatedAt: at(5), LastUsedAt: &used}
	gone := &registry.SSHKey{AccountID: bob.ID, Name: "", Type: "ssh-rsa", Fingerprint: "SHA256:gone", PublicKey: "ssh-rsa AAAAgone", CreatedAt: at(6)}
	must(registry.CreateSSHKey(ctx, s, keep, "alice"))
	must(registry.CreateSSHKey(ctx, s, gone, "bob"))

	const unknownLines = "\x00unknown"
	signedName := ""
	publish := func(owner *registry.Account, pack, version, content string, minute int, key *registry.SSHKey, nonce string) {
		t.Helper()
		in := registry.PublishInput{
			OwnerID: owner.ID, OwnerSlug: owner.Username, PackSlug: pack, Name: "The " + pack, Description: "About <" + pack + "> & more",
			Scheme: "skill", Version: version, Content: []byte(content), SHA256: sha([]byte(content)), Now: at(minute),
		}
		if key != nil {
			in.Provenance = &registry.Provenance{KeyID: key.ID, Fingerprint: key.Fingerprint, Timestamp: at(minute).Unix(),
				Nonce: nonce, Signature: "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n",
				SignedLinesKnown: true, SignedName: signedName, PublicKey: key.PublicKey}
			if signedName == unknownLines {
				// As stored before the signed lines and keys were kept.
				in.Provenance.SignedLinesKnown, in.Provenance.SignedName, in.Provenance.PublicKey = false, "", ""
			}
		}
		if _, _, err := registry.PublishVersion(ctx, s, in); err != nil {
			t.Fatalf("Publish %s@%s: %v", pack, version, err)
		}
	}
	for i, doc := range oddDocuments {
		publish(alice, "odd", fmt.Sprintf("1.%d.0", i), doc, 10+i, nil, "")
	}
	// Nonces that sort differently by bytes and by a locale's collation.
	// Signed lines empty, set, and unknown (stored before they were kept).
	for i, nonce := range []string{"b-nonce-0123456789", "B-nonce-0123456789", "_nonce-0123456789", "a.nonce-0123456789"} {
		signedName = []string{"", "Signed <name> & more", unknownLines, ""}[i]
		publish(alice, "signed", fmt.Sprintf("2.%d.0", i), fmt.Sprintf("# signed %d\n", i), 20+i, keep, nonce)
	}
	signedName = ""
	publish(bob, "orphan", "0.1.0", "# signed by a key that was deleted since\n", 30, gone, "orphan-nonce-0123456789")
	publish(bob, "orphan", "0.0.9", "# an older version published later\n", 31, nil, "")
	must(registry.RemoveSSHKey(ctx, s, bob.ID, gone.ID, time.Now()))
	// A yanked version (the latest moves back to 2.2.0), one yanked and
	// un-yanked again, and a deprecated package.
	signed, err := s.PackageBySlug(ctx, "alice", "signed")
	must(err)
	for _, y := range []struct {
		version string
		yanked  bool
		reason  string
	}{{"2.3.0", true, "broken <parser> & more"}, {"2.1.0", true, ""}, {"2.1.0", false, ""}} {
		_, _, err := registry.SetYanked(ctx, s, signed, y.version, y.yanked, y.reason, at(40))
		must(err)
	}
	orphan, err := s.PackageBySlug(ctx, "bob", "orphan")
	must(err)
	_, err = registry.SetDeprecated(ctx, s, orphan, "use alice/odd & <more>", at(41))
	must(err)
	// A package only CI may publish: its setting and its log entry.
	_, err = registry.SetTrustedPublishingOnly(ctx, s, signed, true, "alice", at(41))
	must(err)
	sess := &registry.Session{AccountID: alice.ID, Hash: []byte("session-hash-0123456789abcdef012"), CreatedAt: at(50), ExpiresAt: at(50 + 60*24*365*10),
		UserAgent: "Mozilla/5.0 (X11; Linux x86_64) \"Firefox/128.0\" ünï", IP: "2001:db8::7"}
	must(registry.CreateSession(ctx, s, sess))
	must(s.TouchSession(ctx, sess.ID, at(55)))
	must(s.SetAccountDisabled(ctx, bob.ID, &revoked))
	// Trusted publishing: a trusted publisher made by alice's expiring
	// token, which expires with it, the token exchanged through it, and a
	// jti spent until far ahead.
	tp := &registry.TrustedPublisher{AccountID: alice.ID, Issuer: "https://token.actions.githubusercontent.com",
		Packages: []string{"odd", "odd-*"}, Claims: map[string]string{"repository": "alice/odd", "environment": "rélease \"1\""}, CreatedAt: at(56),
		ExpiresAt: &expires, CreatedBy: &registry.Maker{AccountID: alice.ID, Username: "alice", TokenID: tokens[1].ID}}
	must(registry.CreateTrustedPublisher(ctx, s, tp, 0))
	exchanged := &registry.Token{AccountID: alice.ID, Name: "trusted publishing, repository alice/odd", CreatedAt: at(56), ExpiresAt: &expires,
		Scopes: []registry.Scope{registry.ScopePublish}, Packages: tp.Packages, CI: &registry.CIIdentity{Issuer: tp.Issuer, Repository: "alice/odd"},
		TrustedPublishers: []int64{tp.ID}, Hash: bytes.Repeat([]byte{0x42}, 32)}
	must(s.CreateToken(ctx, exchanged))
	must(registry.SpendJTI(ctx, s, registry.JTISpend{Issuer: "https://token.actions.githubusercontent.com", JTI: "jti-0001",
		ExpiresAt: at(60 * 24 * 365 * 10), Now: at(56)}))
	// A release of signed 2.2.0, whose artifact keeps a large number and
	// text to escape.
	var v220 *registry.Version
	versions, err := s.ListVersions(ctx, signed.ID)
	must(err)
	for i := range versions {
		if versions[i].Version == "2.2.0" {
			v220 = &versions[i]
		}
	}
	rel := &registry.Release{PackageID: signed.ID, VersionID: v220.ID, Owner: "alice", Pack: "signed", Version: "2.2.0",
		ContractSHA256: v220.SHA256, ArtifactIndexURL: "https://example.com/signed/2.2.0/", SourceGitCommit: "abc1234",
		Artifacts: []json.RawMessage{json.RawMessage(`{"name":"signed <&> \u00e9.tar.gz","size":9007199254740993}`)}, CreatedAt: at(57)}
	rel.SHA256 = sha(rel.Canonical())
	_, _, err = registry.CreateRelease(ctx, s, rel)
	must(err)
}

func dump(t *testing.T, s *sqlstore.Store) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := s.Dump(context.Background(), &buf); err != nil {
		t.Fatalf("Dump (%s): %v", s.Dialect(), err)
	}
	return buf.Bytes()
}

// records drops a dump's header line, which names the source and the time.
func records(t *testing.T, dump []byte) string {
	t.Helper()
	header, rest, ok := bytes.Cut(dump, []byte("\n"))
	if !ok || !bytes.Contains(header, []byte(`"format":"pact-dump"`)) {
		t.Fatalf("dump does not start with a header: %.200q", dump)
	}
	return string(rest)
}

// TestDumpRestoreRoundTrip moves one database through every pair of
// engines and back: the rows, the documents' bytes and what the store
// answers stay the same.
func TestDumpRestoreRoundTrip(t *testing.T) {
	for _, from := range backends {
		for _, to := range backends {
			t.Run(from.name+" to "+to.name, func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				source := open(t, from.dsn(t), sqlstore.Options{})
				populate(t, source)
				first := dump(t, source)
				if n := bytes.Count(first, []byte(`"trusted_publishing_only":true`)); n != 1 {
					t.Errorf("the dump holds %d packages set to trusted publishing only, want 1 (alice/signed)", n)
				}

				targetDSN := to.dsn(t)
				target := open(t, targetDSN, sqlstore.Options{})
				counts, err := target.Restore(ctx, bytes.NewReader(first))
				if err != nil {
					t.Fatalf("Restore: %v", err)
				}
				if to.name == "postgres" {
					// The search index was analysed: the planner knows a
					// common word from a rare one at once.
					db, err := sql.Open("pgx", targetDSN)
					if err != nil {
						t.Fatal(err)
					}
					var analysed int64
					if err := db.QueryRowContext(ctx, "SELECT count(*) FROM pg_stats WHERE tablename = 'package_search' AND attname = 'texts'").Scan(&analysed); err != nil || analysed == 0 {
						t.Errorf("package_search after restore: %d statistics, %v; want it analysed", analysed, err)
					}
					db.Close()
				}
				// The nonce of the deleted key is remembered too.
				// Ten versions published, two keys added and one removed, two yanks and an un-yank, a package set to trusted
				// publishing only, a release: 18 log entries; and a pack-state entry after each publish, yank,
				// un-yank and the deprecation: 14 more.
				want := sqlstore.BackupCounts{Accounts: 2, Tokens: 5, SSHKeys: 1, Packages: 3, Versions: 10, Nonces: 5, Sessions: 1, LogEntries: 32,
					TrustedPublishers: 1, SpentJTIs: 1, Releases: 1}
				if counts != want {
					t.Errorf("Restore counts %s, want %s", counts, want)
				}
				if got, want := records(t, dump(t, target)), records(t, first); got != want {
					t.Errorf("the restored database dumps differently:\n--- restored\n%s\n--- original\n%s", got, want)
				}
				sameAnswers(t, source, target)

				// New rows get fresh ids after the restored ones.
				carol := &registry.Account{Email: "carol@example.com", Username: "carol", CreatedAt: time.Now()}
				if err := target.CreateAccount(ctx, carol); err != nil || carol.ID != 3 {
					t.Errorf("CreateAccount after restore: id %d, %v; want id 3", carol.ID, err)
				}
				content := []byte("# new\n")
				p, created, err := registry.PublishVersion(ctx, target, registry.PublishInput{OwnerID: carol.ID, OwnerSlug: "carol", PackSlug: "new", Name: "new",
					Version: "1.0.0", Content: content, SHA256: sha(content), Now: time.Now()})
				var lastPackage int64
				for _, q := range mustList(t, source) {
					lastPackage = max(lastPackage, q.ID)
				}
				if err != nil || !created || p.ID != lastPackage+1 || p.LatestVersionID != 11 {
					t.Errorf("Publish after restore: %+v, created %v, %v; want package %d with version 11", p, created, err, lastPackage+1)
				}
			})
		}
	}
}

func mustList(t *testing.T, s *sqlstore.Store) []registry.Package {
	t.Helper()
	packages, err := s.ListPackages(context.Background(), registry.PackageFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return packages
}

// sameAnswers compares what two stores answer to the reads the API makes.
func sameAnswers(t *testing.T, a, b *sqlstore.Store) {
	t.Helper()
	ctx := context.Background()
	type answers struct {
		Packages  []registry.Package
		Versions  map[string][]registry.Version
		Documents map[string][]byte
		Accounts  []*registry.Account
		Tokens    [][]registry.Token
		Keys      [][]registry.SSHKey
		Trust     [][]registry.TrustedPublisher
		Releases  [][]registry.Release
	}
	read := func(s *sqlstore.Store) answers {
		var out answers
		var err error
		out.Packages, err = s.ListPackages(ctx, registry.PackageFilter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		out.Versions, out.Documents = map[string][]registry.Version{}, map[string][]byte{}
		for _, p := range out.Packages {
			versions, err := s.ListVersions(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			out.Versions[p.OwnerSlug+"/"+p.PackSlug] = versions
			releases, err := s.ListReleases(ctx, p.ID, 0, 100)
			if err != nil {
				t.Fatal(err)
			}
			out.Releases = append(out.Releases, releases)
			for _, v := range append(versions, registry.Version{}) { // "" is the latest
				doc, err := s.VersionDocument(ctx, p.OwnerSlug, p.PackSlug, v.Version)
				if err != nil {
					t.Fatal(err)
				}
				out.Documents[p.OwnerSlug+"/"+p.PackSlug+"@"+v.Version] = doc.Content
			}
		}
		for _, name := range []string{"alice", "bob"} {
			acct, err := s.AccountByUsername(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			tokens, err := s.ListTokens(ctx, acct.ID, registry.TokenFilter{})
			if err != nil {
				t.Fatal(err)
			}
			keys, err := s.ListSSHKeys(ctx, acct.ID)
			if err != nil {
				t.Fatal(err)
			}
			trust, err := s.ListTrustedPublishers(ctx, acct.ID)
			if err != nil {
				t.Fatal(err)
			}
			out.Accounts, out.Tokens, out.Keys = append(out.Accounts, acct), append(out.Tokens, tokens), append(out.Keys, keys)
			out.Trust = append(out.Trust, trust)
		}
		return out
	}
	want, got := read(a), read(b)
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("the restored store answers differently:\n--- restored\n%s\n--- original\n%s", g, w)
	}
	for i, doc := range oddDocuments {
		if got := got.Documents[fmt.Sprintf("alice/odd@1.%d.0", i)]; string(got) != doc {
			t.Errorf("document %d came back as %q, want %q", i, got, doc)
		}
	}
	if _, err := b.SessionByHash(ctx, []byte("session-hash-0123456789abcdef012"), time.Now()); err != nil {
		t.Errorf("the session did not survive: %v", err)
	}
	if len(got.Trust[0]) != 1 || got.Trust[0][0].ExpiresAt == nil || got.Trust[0][0].CreatedBy == nil || got.Trust[0][0].CreatedBy.TokenID == 0 {
		t.Errorf("alice's trusted publishers came back as %+v, want one with its expiry and maker", got.Trust[0])
	}
	if via := got.Tokens[0][0].TrustedPublishers; len(via) != 1 || via[0] != got.Trust[0][0].ID {
		t.Errorf("alice's exchanged token came back through the trusted publishers %v", via)
	}
	if err := registry.SpendJTI(ctx, b, registry.JTISpend{Issuer: "https://token.actions.githubusercontent.com", JTI: "jti-0001",
		ExpiresAt: time.Now().Add(time.Hour), Now: time.Now()}); !errors.Is(err, registry.ErrJTIReused) {
		t.Errorf("the spent jti was forgotten: SpendJTI = %v", err)
	}
}

func TestRestoreRefusesADatabaseWithData(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			source := open(t, storetest.SQLiteDSN(t), sqlstore.Options{})
			populate(t, source)
			file := dump(t, source)

			target := open(t, b.dsn(t), sqlstore.Options{})
			dave := &registry.Account{Email: "dave@example.com", Username: "dave", CreatedAt: time.Now()}
			if err := target.CreateAccount(context.Background(), dave); err != nil {
				t.Fatal(err)
			}
			before := records(t, dump(t, target))
			_, err := target.Restore(context.Background(), bytes.NewReader(file))
			if code := registry.ErrorCode(err); code != registry.Conflict {
				t.Fatalf("Restore into a database with an account: code %q (%v), want %q", code, err, registry.Conflict)
			}
			if msg := registry.ErrorMessage(err); !strings.Contains(msg, "not empty (it holds accounts)") {
				t.Errorf("message %q does not say what the database holds", msg)
			}
			if after := records(t, dump(t, target)); after != before {
				t.Errorf("a refused restore changed the database:\n%s", after)
			}
		})
	}
}

// A damaged or truncated file restores nothing, and says where it broke.
func TestRestoreRefusesDamagedDumps(t *testing.T) {
	source := open(t, storetest.SQLiteDSN(t), sqlstore.Options{})
	populate(t, source)
	good := string(dump(t, source))
	lines := strings.SplitAfter(strings.TrimSuffix(good, "\n"), "\n")
	last := len(lines) - 1 // the end record
	firstVersion := strings.Index(good, `{"type":"version"`)
	firstToken := strings.Index(good, `{"type":"token"`)
	tokenLine := good[firstToken : firstToken+strings.Index(good[firstToken:], "\n")+1]

	cases := []struct {
		name    string
		file    string
		message string
	}{
		{"empty file", "", "the dump is empty"},
		{"not JSON", "hello\n", "not a pact dump"},
		{"another format", `{"format":"tarball","version":1}` + "\n", "not a pact dump"},
		{"newer format version", `{"format":"pact-dump","version":4}` + "\n", "format version 4"},
		{"cut short", strings.Join(lines[:last], ""), "cut short"},
		{"cut inside a line", good[:firstVersion+40], "cut short in line"},
		{"counts do not match", strings.Join(lines[:last-2], "") + lines[last-1] + lines[last], "counts"}, // a row dropped before the log state
		{"log state missing", strings.Join(lines[:last-1], "") + lines[last], "no log state record"},
		{"record after the end", good + tokenLine, "after its end record"},
		{"unknown record type", strings.Join(lines[:2], "") + `{"type":"widget","id":1}` + "\n" + strings.Join(lines[2:], ""), `unknown record type "widget"`},
		{"unknown field", strings.Replace(good, `"password_hash"`, `"pass_hash"`, 1), "unknown field"},
		{"document bytes changed", good[:firstVersion] + strings.Replace(good[firstVersion:], `"content":"`, `"content":"AAAA`, 1), "does not match its sha256"},
		{"child before its parent", lines[0] + tokenLine + strings.Join(lines[1:], ""), "restoring token"},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			target := open(t, b.dsn(t), sqlstore.Options{})
			for _, c := range cases {
				_, err := target.Restore(context.Background(), strings.NewReader(c.file))
				if err == nil {
					t.Errorf("%s: Restore succeeded", c.name)
					continue
				}
				if !strings.Contains(err.Error(), c.message) {
					t.Errorf("%s: error %q, want it to mention %q", c.name, err, c.message)
				}
				if n := strings.Count(records(t, dump(t, target)), "\n"); n != 2 { // the log state and the end record
					t.Fatalf("%s: a failed restore left rows behind:\n%s", c.name, dump(t, target))
				}
			}
			// After all those failures the database is still empty and
			// takes the good file.
			if _, err := target.Restore(context.Background(), strings.NewReader(good)); err != nil {
				t.Errorf("Restore of the good dump after failed ones: %v", err)
			}
		})
	}
}

// A dump made before trusted publishers kept their maker and expiry
// restores them as the migration leaves them: a user's own made by the
// user, with no token, lasting until removed.
func TestRestoreOfTrustedPublishersWithoutTheirMaker(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { restoreWithoutMakers(t, b.dsn) })
	}
}

func restoreWithoutMakers(t *testing.T, dsn func(testing.TB) string) {
	source := open(t, dsn(t), sqlstore.Options{})
	populate(t, source)
	var lines []string
	for _, line := range strings.Split(strings.TrimSuffix(string(dump(t, source)), "\n"), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec["type"] == "trusted_publisher" {
			delete(rec, "created_by")
			delete(rec, "created_by_token")
			delete(rec, "expires_at")
			b, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			line = string(b)
		}
		lines = append(lines, line)
	}
	target := open(t, dsn(t), sqlstore.Options{})
	if _, err := target.Restore(context.Background(), strings.NewReader(strings.Join(lines, "\n")+"\n")); err != nil {
		t.Fatal(err)
	}
	alice, err := target.AccountByUsername(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	list, err := target.ListTrustedPublishers(context.Background(), alice.ID)
	if err != nil || len(list) != 1 || list[0].ExpiresAt != nil || list[0].CreatedBy == nil ||
		*list[0].CreatedBy != (registry.Maker{AccountID: alice.ID, Username: "alice"}) {
		t.Errorf("restored %+v, %v; want alice's, made by alice with no token and no expiry", list, err)
	}
}

// newDSN makes a fresh, empty database of one engine (backends' dsn).
type newDSN = func(t testing.TB) string

// dumpTime is when the dump tests make what they dump.
var dumpTime = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

// acrossEngines runs test, in parallel, for every pair of engines a dump is
// made on and restored into: source is a fresh store of the first, holding
// the accounts named (NAME@example.com, made at dumpTime), and to makes the
// database of the engine roundTrip restores into.
func acrossEngines(t *testing.T, usernames []string, test func(t *testing.T, source *sqlstore.Store, accounts []*registry.Account, to newDSN)) {
	for _, from := range backends {
		for _, to := range backends {
			t.Run(from.name+" to "+to.name, func(t *testing.T) {
				t.Parallel()
				source := open(t, from.dsn(t), sqlstore.Options{})
				accounts := make([]*registry.Account, len(usernames))
				for i, name := range usernames {
					accounts[i] = &registry.Account{Email: name + "@example.com", Username: name, CreatedAt: dumpTime}
					if err := source.CreateAccount(context.Background(), accounts[i]); err != nil {
						t.Fatal(err)
					}
				}
				test(t, source, accounts, to.dsn)
			})
		}
	}
}

// roundTrip dumps source, whose dump must hold each of want, restores it
// into a fresh store of to's engine, which must dump the same records, and
// answers the restore's counts and that store.
func roundTrip(t *testing.T, source *sqlstore.Store, to newDSN, want ...string) (sqlstore.BackupCounts, *sqlstore.Store) {
	t.Helper()
	first := dump(t, source)
	for _, w := range want {
		if !bytes.Contains(first, []byte(w)) {
			t.Fatalf("the dump lacks %s:\n%s", w, first)
		}
	}
	target := open(t, to(t), sqlstore.Options{})
	counts, err := target.Restore(context.Background(), bytes.NewReader(first))
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if got, want := records(t, dump(t, target)), records(t, first); got != want {
		t.Errorf("the restored database dumps differently:\n--- restored\n%s\n--- original\n%s", got, want)
	}
	return counts, target
}
