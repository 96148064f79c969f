package translog

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// A publish with a token from trusted publishing names the CI job; it
// parses back, and a malformed one is refused.
func TestOIDCPublishEntry(t *testing.T) {
	ev := PublishEvent{Time: time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC), Owner: "alice", Pack: "widget", Version: "1.2.0",
		SHA256: strings.Repeat("ab", 32), Size: 1234, Auth: AuthOIDC, Issuer: "https://token.actions.githubusercontent.com",
		CI: `{"issuer":"https://token.actions.githubusercontent.com","repository":"alice/widget","workflow":"alice/widget/.github/workflows/release.yml@refs/heads/main","ref":"refs/heads/main","sha":"3f2a","run_id":"42"}`}
	text := NewPublish(ev).Marshal()
	want := "pact-log-entry v1\nkind publish\ntime 2026-11-22T22:00:00Z\nowner alice\npack widget\nversion 1.2.0\nsha256 " +
		strings.Repeat("ab", 32) + "\nsize 1234\nauth oidc\nissuer https://token.actions.githubusercontent.com\nci " + ev.CI + "\n"
	if string(text) != want {
		t.Fatalf("entry:\n%s\nwant:\n%s", text, want)
	}
	e, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Publish()
	if err != nil || !reflect.DeepEqual(got, ev) {
		t.Errorf("Publish() = %+v, %v; want %+v", got, err, ev)
	}
	for name, bad := range map[string]string{
		"ci not JSON": strings.Replace(string(text), "ci {", "ci x{", 1),
		"no ci":       strings.Replace(string(text), "ci "+ev.CI+"\n", "", 1),
		"a key":       strings.Replace(string(text), "issuer ", "key ", 1),
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}
