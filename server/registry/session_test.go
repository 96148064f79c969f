package registry_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

func TestCleanUserAgent(t *testing.T) {
	long := strings.Repeat("ü", 150) // 300 bytes
	cases := []struct {
		name, in, want string
	}{
		{"kept as sent", "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0", "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0"},
		{"empty", "", ""},
		{"spaces trimmed", "  curl/8.5.0 ", "curl/8.5.0"},
		{"control characters become spaces", "a\x00b\tc\x1b[31md\u202ee", "a b c [31md e"},
		{"invalid UTF-8 becomes a space", "a\xffb", "a b"},
		{"cut at 200 bytes on a character boundary", long, strings.Repeat("ü", 100)},
		{"cut after a one-byte prefix", "x" + long, "x" + strings.Repeat("ü", 99)},
	}
	for _, c := range cases {
		got := registry.CleanUserAgent(c.in)
		if got != c.want {
			t.Errorf("%s: CleanUserAgent(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
		if len(got) > registry.MaxUserAgentBytes || !utf8.ValidString(got) {
			t.Errorf("%s: %d bytes, valid UTF-8 %v", c.name, len(got), utf8.ValidString(got))
		}
	}
}

// The service keeps a session's address only when it is one, canonical.
func TestStartSessionKeepsTheClient(t *testing.T) {
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, storetest.SQLiteDSN(t), sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc := registry.NewService(store, registry.Options{})
	acct, err := svc.CreateAccount(ctx, "alice@example.com", "alice", "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"192.0.2.1":        "192.0.2.1",
		"::ffff:192.0.2.1": "192.0.2.1",
		"2001:DB8::1":      "2001:db8::1",
		"fe80::1%eth0":     "fe80::1",
		"not an address":   "",
		"":                 "",
		"192.0.2.1:8080":   "",
	} {
		id, err := svc.StartSession(ctx, acct.ID, registry.SessionClient{UserAgent: "curl/8", IP: in})
		if err != nil {
			t.Fatal(err)
		}
		_, sess, err := svc.SessionAccount(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if sess.IP != want || sess.UserAgent != "curl/8" {
			t.Errorf("IP %q stored as %q (user agent %q), want %q", in, sess.IP, sess.UserAgent, want)
		}
	}
}
