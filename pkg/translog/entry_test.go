package translog

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

var when = time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC)

func TestMarshalKinds(t *testing.T) {
	tests := []struct {
		name  string
		entry *Entry
		want  string
	}{
		{"token publish", NewPublish(PublishEvent{Time: when, Owner: "alice", Pack: "widget", Version: "1.2.0",
			SHA256: strings.Repeat("ab", 32), Size: 1234, Auth: AuthToken}),
			"pact-log-entry v1\nkind publish\ntime 2026-11-22T22:00:00Z\nowner alice\npack widget\nversion 1.2.0\n" +
				"sha256 " + strings.Repeat("ab", 32) + "\nsize 1234\nauth token\n"},
		{"ssh publish", NewPublish(PublishEvent{Time: when.Add(500 * time.Millisecond), Owner: "alice", Pack: "widget",
			Version: "1.2.0", SHA256: strings.Repeat("0f", 32), Size: 7, Auth: AuthSSH,
			Key: "ssh-ed25519 AAAAC3Nza", SignedLines: []byte("pact-publish v1\nline\n")}),
			"pact-log-entry v1\nkind publish\ntime 2026-11-22T22:00:00Z\nowner alice\npack widget\nversion 1.2.0\n" +
				"sha256 " + strings.Repeat("0f", 32) + "\nsize 7\nauth ssh\nkey ssh-ed25519 AAAAC3Nza\n" +
				"signed-lines cGFjdC1wdWJsaXNoIHYxCmxpbmUK\n"},
		{"key add", NewKeyAdd(KeyEvent{Time: when, Owner: "bob", Key: "ssh-ed25519 AAAA", Fingerprint: "SHA256:xyz"}),
			"pact-log-entry v1\nkind key-add\ntime 2026-11-22T22:00:00Z\nowner bob\nkey ssh-ed25519 AAAA\nfingerprint SHA256:xyz\n"},
		{"key remove", NewKeyRemove(KeyEvent{Time: when, Owner: "bob", Key: "ssh-rsa AAAA", Fingerprint: "SHA256:q"}),
			"pact-log-entry v1\nkind key-remove\ntime 2026-11-22T22:00:00Z\nowner bob\nkey ssh-rsa AAAA\nfingerprint SHA256:q\n"},
		{"yank", NewYank(YankEvent{Time: when, Owner: "a", Pack: "p", Version: "1.0.0", Reason: "broken <b>\n\"x\""}),
			"pact-log-entry v1\nkind yank\ntime 2026-11-22T22:00:00Z\nowner a\npack p\nversion 1.0.0\nreason \"broken <b>\\n\\\"x\\\"\"\n"},
		{"unyank", NewUnyank(YankEvent{Time: when, Owner: "a", Pack: "p", Version: "1.0.0"}),
			"pact-log-entry v1\nkind unyank\ntime 2026-11-22T22:00:00Z\nowner a\npack p\nversion 1.0.0\n"},
		{"release", NewRelease(ReleaseEvent{Time: when, Owner: "a", Pack: "p", Version: "1.0.0", SHA256: strings.Repeat("ab", 32),
			Release: strings.Repeat("cd", 32), Artifacts: 3, Commit: "abc1234"}),
			"pact-log-entry v1\nkind release\ntime 2026-11-22T22:00:00Z\nowner a\npack p\nversion 1.0.0\nsha256 " + strings.Repeat("ab", 32) +
				"\nrelease " + strings.Repeat("cd", 32) + "\nartifacts 3\ncommit abc1234\n"},
		{"release without a commit", NewRelease(ReleaseEvent{Time: when, Owner: "a", Pack: "p", Version: "1.0.0",
			SHA256: strings.Repeat("ab", 32), Release: strings.Repeat("cd", 32)}),
			"pact-log-entry v1\nkind release\ntime 2026-11-22T22:00:00Z\nowner a\npack p\nversion 1.0.0\nsha256 " + strings.Repeat("ab", 32) +
				"\nrelease " + strings.Repeat("cd", 32) + "\nartifacts 0\n"},
		{"trusted publishing only", NewTrustedPublishingOnly(TrustedPublishingOnlyEvent{Time: when, Owner: "acme", Pack: "p", Only: true, By: "alice"}),
			"pact-log-entry v1\nkind trusted-publishing-only\ntime 2026-11-22T22:00:00Z\nowner acme\npack p\nvalue true\nby alice\n"},
		{"trusted publishing only, off", NewTrustedPublishingOnly(TrustedPublishingOnlyEvent{Time: when, Owner: "a", Pack: "p", By: "a"}),
			"pact-log-entry v1\nkind trusted-publishing-only\ntime 2026-11-22T22:00:00Z\nowner a\npack p\nvalue false\nby a\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.entry.Marshal()
			if string(got) != tt.want {
				t.Fatalf("Marshal:\n%s\nwant:\n%s", got, tt.want)
			}
			e, err := Parse(got)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !bytes.Equal(e.Marshal(), got) {
				t.Fatalf("round trip changed the bytes:\n%s", e.Marshal())
			}
		})
	}
}

func TestTypedReaders(t *testing.T) {
	in := PublishEvent{Time: when, Owner: "alice", Pack: "widget", Version: "1.2.0", SHA256: strings.Repeat("ab", 32),
		Size: 9, Auth: AuthSSH, Key: "ssh-ed25519 AAAA", SignedLines: []byte("a\nb\n")}
	e, err := Parse(NewPublish(in).Marshal())
	if err != nil {
		t.Fatal(err)
	}
	p, err := e.Publish()
	if err != nil || p.Owner != "alice" || p.Size != 9 || string(p.SignedLines) != "a\nb\n" || p.Key != in.Key ||
		!p.Time.Equal(when) {
		t.Fatalf("Publish() = %+v, %v", p, err)
	}
	if _, err := e.KeyEvent(); err == nil {
		t.Fatal("KeyEvent on a publish entry: no error")
	}
	y, err := NewYank(YankEvent{Time: when, Owner: "a", Pack: "p", Version: "1", Reason: "é\t"}).Yank()
	if err != nil || y.Reason != "é\t" {
		t.Fatalf("Yank() = %+v, %v", y, err)
	}
	k, err := NewKeyRemove(KeyEvent{Time: when, Owner: "o", Key: "k v", Fingerprint: "SHA256:f"}).KeyEvent()
	if err != nil || k.Key != "k v" || k.Fingerprint != "SHA256:f" {
		t.Fatalf("KeyEvent() = %+v, %v", k, err)
	}
	for _, only := range []bool{true, false} {
		ev := TrustedPublishingOnlyEvent{Time: when, Owner: "acme", Pack: "widget", Only: only, By: "alice"}
		got, err := NewTrustedPublishingOnly(ev).TrustedPublishingOnly()
		if err != nil || got != ev {
			t.Fatalf("TrustedPublishingOnly() = %+v, %v; want %+v", got, err, ev)
		}
	}
	if _, err := e.TrustedPublishingOnly(); err == nil {
		t.Fatal("TrustedPublishingOnly on a publish entry: no error")
	}
}

func TestParseUnknownKind(t *testing.T) {
	in := "pact-log-entry v1\nkind attestation\ntime 2026-11-22T22:00:00Z\nowner alice\nnote {\"a\":1}\n"
	e, err := Parse([]byte(in))
	if err != nil {
		t.Fatalf("Parse of an unknown kind: %v", err)
	}
	if e.Kind != "attestation" || e.Get("note") != `{"a":1}` || string(e.Marshal()) != in {
		t.Fatalf("got %+v", e)
	}
}

func TestParseRejects(t *testing.T) {
	const head = "pact-log-entry v1\n"
	const tm = "time 2026-11-22T22:00:00Z\n"
	sha := "sha256 " + strings.Repeat("ab", 32) + "\n"
	token := "kind publish\n" + tm + "owner a\npack p\nversion 1\n" + sha + "size 3\nauth token\n"
	tests := map[string]string{
		"empty":                "",
		"other version":        "pact-log-entry v2\nkind publish\n" + tm,
		"no final newline":     strings.TrimSuffix(head+token, "\n"),
		"crlf":                 strings.ReplaceAll(head+token, "\n", "\r\n"),
		"time first":           head + tm + "kind publish\n",
		"no time":              head + "kind publish\n",
		"local time":           head + "kind x\ntime 2026-11-22T22:00:00+01:00\n",
		"fractional time":      head + "kind x\ntime 2026-11-22T22:00:00.5Z\n",
		"duplicate key":        head + "kind x\n" + tm + "a 1\na 2\n",
		"upper-case key":       head + "kind x\n" + tm + "Owner a\n",
		"empty value":          head + "kind x\n" + tm + "a \n",
		"no value":             head + "kind x\n" + tm + "a\n",
		"blank line":           head + "kind x\n" + tm + "\n",
		"tab in value":         head + "kind x\n" + tm + "a b\tc\n",
		"not utf-8":            head + "kind x\n" + tm + "a \xff\n",
		"publish missing size": head + strings.Replace(token, "size 3\n", "", 1),
		"publish out of order": head + strings.Replace(token, "owner a\npack p\n", "pack p\nowner a\n", 1),
		"publish upper hex":    head + strings.Replace(token, sha, strings.ToUpper(sha), 1),
		"publish size sign":    head + strings.Replace(token, "size 3", "size +3", 1),
		"publish size zeros":   head + strings.Replace(token, "size 3", "size 03", 1),
		"publish auth other":   head + strings.Replace(token, "auth token", "auth magic", 1),
		"token with key":       head + token + "key ssh-ed25519 A\n",
		"ssh without lines":    head + strings.Replace(token, "auth token", "auth ssh", 1) + "key ssh-ed25519 A\n",
		"ssh unpadded lines": head + strings.Replace(token, "auth token", "auth ssh", 1) +
			"key ssh-ed25519 A\nsigned-lines YQ\n",
		"yank reason not json": head + "kind yank\n" + tm + "owner a\npack p\nversion 1\nreason broken\n",
		"yank reason escaped":  head + "kind yank\n" + tm + "owner a\npack p\nversion 1\nreason \"\\u0061\"\n",
		"release short commit": head + "kind release\n" + tm + "owner a\npack p\nversion 1\n" + sha + "release " + strings.Repeat("cd", 32) +
			"\nartifacts 1\ncommit abc\n",
		"release bad digest": head + "kind release\n" + tm + "owner a\npack p\nversion 1\n" + sha + "release xyz\nartifacts 1\n",
		"release count sign": head + "kind release\n" + tm + "owner a\npack p\nversion 1\n" + sha + "release " + strings.Repeat("cd", 32) +
			"\nartifacts -1\n",
		"key-add extra field":                head + "kind key-add\n" + tm + "owner a\nkey k\nfingerprint f\nextra 1\n",
		"trusted publishing only yes":        head + "kind trusted-publishing-only\n" + tm + "owner a\npack p\nvalue yes\nby a\n",
		"trusted publishing only True":       head + "kind trusted-publishing-only\n" + tm + "owner a\npack p\nvalue True\nby a\n",
		"trusted publishing only without by": head + "kind trusted-publishing-only\n" + tm + "owner a\npack p\nvalue true\n",
		"too large":                          head + "kind x\n" + tm + "a " + strings.Repeat("b", MaxEntrySize) + "\n",
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			if e, err := Parse([]byte(in)); err == nil {
				t.Fatalf("Parse accepted it: %+v", e)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add(NewPublish(PublishEvent{Time: when, Owner: "alice", Pack: "widget", Version: "1.2.0",
		SHA256: strings.Repeat("ab", 32), Size: 1234, Auth: AuthToken}).Marshal())
	f.Add(NewPublish(PublishEvent{Time: when, Owner: "alice", Pack: "widget", Version: "1.2.0",
		SHA256: strings.Repeat("ab", 32), Size: 1, Auth: AuthSSH, Key: "ssh-ed25519 A", SignedLines: []byte("x")}).Marshal())
	f.Add(NewKeyAdd(KeyEvent{Time: when, Owner: "o", Key: "k", Fingerprint: "f"}).Marshal())
	f.Add(NewYank(YankEvent{Time: when, Owner: "o", Pack: "p", Version: "v", Reason: "r"}).Marshal())
	f.Add(NewRelease(ReleaseEvent{Time: when, Owner: "o", Pack: "p", Version: "v", SHA256: strings.Repeat("ab", 32),
		Release: strings.Repeat("cd", 32), Artifacts: 2, Commit: "abcdef0"}).Marshal())
	f.Add(NewTrustedPublishingOnly(TrustedPublishingOnlyEvent{Time: when, Owner: "o", Pack: "p", Only: true, By: "b"}).Marshal())
	f.Add([]byte("pact-log-entry v1\nkind other\ntime 2026-11-22T22:00:00Z\na b c\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := Parse(data)
		if err != nil {
			return
		}
		out := e.Marshal()
		if !bytes.Equal(out, data) {
			t.Fatalf("Parse accepted bytes that Marshal writes differently:\n%q\n%q", data, out)
		}
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(Marshal(e)): %v", err)
		}
		if !bytes.Equal(again.Marshal(), out) {
			t.Fatal("second round trip differs")
		}
	})
}

// Member entries round-trip, and a removal has no role.
func TestMemberEntries(t *testing.T) {
	at := time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC)
	for _, ev := range []MemberEvent{
		{Time: at, Owner: "acme", Member: "bob", Role: "maintainer", By: "alice"},
		{Time: at, Owner: "acme", Member: "bob", By: "alice"},
	} {
		e := NewMember(ev)
		parsed, err := Parse(e.Marshal())
		if err != nil {
			t.Fatalf("Parse(%q): %v", e.Marshal(), err)
		}
		got, err := parsed.MemberEvent()
		if err != nil || got != ev {
			t.Errorf("MemberEvent = %+v, %v; want %+v", got, err, ev)
		}
		want := KindMember
		if ev.Role == "" {
			want = KindMemberRemove
		}
		if parsed.Kind != want {
			t.Errorf("kind %s, want %s", parsed.Kind, want)
		}
	}
	if _, err := Parse([]byte(Header + "\nkind member\ntime 2026-11-22T22:00:00Z\nowner acme\nmember bob\n")); err == nil {
		t.Error("a member entry without role and by parsed")
	}
}

// A trusted-publisher-remove entry writes its fields in their fixed order,
// and one that lacks a field is refused.
func TestTrustedPublisherRemoveEntry(t *testing.T) {
	at := time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC)
	e := NewTrustedPublisherRemove(TrustedPublisherRemoveEvent{Time: at, Owner: "acme", Member: "bob", ID: 3,
		Issuer: "https://token.actions.githubusercontent.com", Packages: "widget widget-*", RevokedTokens: 2, By: "alice"})
	want := Header + "\nkind trusted-publisher-remove\ntime 2026-11-22T22:00:00Z\nowner acme\nmember bob\ntrusted-publisher 3\n" +
		"issuer https://token.actions.githubusercontent.com\npackages widget widget-*\nrevoked-tokens 2\nby alice\n"
	if string(e.Marshal()) != want {
		t.Errorf("Marshal =\n%s\nwant\n%s", e.Marshal(), want)
	}
	parsed, err := Parse(e.Marshal())
	if err != nil || !bytes.Equal(parsed.Marshal(), e.Marshal()) {
		t.Fatalf("Parse = %v, %v", parsed, err)
	}
	short := strings.Replace(want, "revoked-tokens 2\n", "", 1)
	if _, err := Parse([]byte(short)); err == nil {
		t.Error("a trusted-publisher-remove entry without revoked-tokens parsed")
	}
}

func TestPackStateEntry(t *testing.T) {
	at := time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC)
	const head = "pact-log-entry v1\nkind pack-state\ntime 2026-11-22T22:00:00Z\nowner alice\npack widget\n"
	full := NewPackState(PackStateEvent{Time: at, Owner: "alice", Pack: "widget", Prev: 7, Latest: "2.0.0",
		Yanked: []string{"1.5.0", "1.0.0"}, Deprecated: `use "alice/other"`})
	if got, want := string(full.Marshal()), head+"prev 7\nlatest 2.0.0\nyanked 1.0.0 1.5.0\ndeprecated \"use \\\"alice/other\\\"\"\n"; got != want {
		t.Fatalf("marshal:\n%s\nwant\n%s", got, want)
	}
	first := NewPackState(PackStateEvent{Time: at, Owner: "alice", Pack: "widget", Prev: -1, Latest: "1.0.0"})
	for _, e := range []*Entry{full, first} {
		parsed, err := Parse(e.Marshal())
		if err != nil {
			t.Fatal(err)
		}
		ev, err := parsed.PackState()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(NewPackState(ev).Marshal(), e.Marshal()) {
			t.Fatalf("round trip of %s", e.Marshal())
		}
	}
	ev, _ := full.PackState()
	if !ev.IsYanked("1.0.0") || ev.IsYanked("2.0.0") || ev.Prev != 7 || ev.Deprecated != `use "alice/other"` {
		t.Fatalf("read %+v", ev)
	}
	for name, in := range map[string]string{
		"unsorted yanked":     head + "yanked 2.0.0 1.0.0\n",
		"duplicate yanked":    head + "yanked 1.0.0 1.0.0\n",
		"empty yanked name":   head + "yanked  1.0.0\n",
		"double space":        head + "yanked 1.0.0  2.0.0\n",
		"fields out of order": head + "latest 1.0.0\nprev 3\n",
		"unknown field":       head + "colour red\n",
		"negative prev":       head + "prev -1\n",
		"prev not decimal":    head + "prev 07\n",
		"deprecated not json": head + "deprecated use other\n",
		"no pack":             "pact-log-entry v1\nkind pack-state\ntime 2026-11-22T22:00:00Z\nowner alice\n",
	} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
