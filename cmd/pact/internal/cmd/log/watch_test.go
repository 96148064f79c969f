package log

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/pkg/translog"
)

func TestDescribeLogEvent(t *testing.T) {
	at := time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC)
	const key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBmkpZm5Nt7hCnMzFd1w2/cBHwR6sIgyNqJUVSx9w6xq"
	fp := keyFingerprint(key)
	if !strings.HasPrefix(fp, "SHA256:") {
		t.Fatalf("keyFingerprint = %q", fp)
	}
	tests := []struct {
		name  string
		entry *translog.Entry
		want  string
	}{
		{"token publish", translog.NewPublish(translog.PublishEvent{Time: at, Owner: "alice", Pack: "widget", Version: "1.2.0", SHA256: strings.Repeat("a", 64), Size: 3, Auth: translog.AuthToken}),
			"2026-11-22 22:00 alice published widget 1.2.0 (token)"},
		{"signed publish", translog.NewPublish(translog.PublishEvent{Time: at, Owner: "alice", Pack: "widget", Version: "1.2.0", SHA256: strings.Repeat("a", 64), Size: 3, Auth: translog.AuthSSH, Key: key, SignedLines: []byte("x\n")}),
			"2026-11-22 22:00 alice published widget 1.2.0 (ssh " + fp + ")"},
		{"key added", translog.NewKeyAdd(translog.KeyEvent{Time: at, Owner: "alice", Key: key, Fingerprint: fp}),
			"2026-11-22 22:00 alice added key " + fp + " (ssh-ed25519)"},
		{"key removed", translog.NewKeyRemove(translog.KeyEvent{Time: at, Owner: "alice", Key: key, Fingerprint: fp}),
			"2026-11-22 22:00 alice removed key " + fp + " (ssh-ed25519)"},
		{"yank", translog.NewYank(translog.YankEvent{Time: at, Owner: "alice", Pack: "widget", Version: "1.2.0", Reason: "broken \x1b[2J"}),
			`2026-11-22 22:00 alice yanked widget 1.2.0: broken \x1b[2J`},
		{"unyank", translog.NewUnyank(translog.YankEvent{Time: at, Owner: "alice", Pack: "widget", Version: "1.2.0"}),
			"2026-11-22 22:00 alice unyanked widget 1.2.0"},
		{"release", translog.NewRelease(translog.ReleaseEvent{Time: at, Owner: "alice", Pack: "widget", Version: "1.2.0", SHA256: strings.Repeat("a", 64), Release: strings.Repeat("b", 64), Artifacts: 3, Commit: "abc1234"}),
			"2026-11-22 22:00 alice registered the release of widget 1.2.0 (3 artifacts, commit abc1234)"},
		{"release without a commit", translog.NewRelease(translog.ReleaseEvent{Time: at, Owner: "alice", Pack: "widget", Version: "1.2.0", SHA256: strings.Repeat("a", 64), Release: strings.Repeat("b", 64)}),
			"2026-11-22 22:00 alice registered the release of widget 1.2.0 (0 artifacts)"},
		{"a trusted publisher removed with its maker's owner role", translog.NewTrustedPublisherRemove(translog.TrustedPublisherRemoveEvent{Time: at, Owner: "acme", Member: "bob", ID: 3, Issuer: "https://token.actions.githubusercontent.com", Packages: "widget widget-*", RevokedTokens: 1, By: "alice"}),
			"2026-11-22 22:00 acme: trusted publisher 3 (https://token.actions.githubusercontent.com, packages widget widget-*), which bob added, went with its owner role; 1 token revoked (by alice)"},
		{"trusted publishing only", translog.NewTrustedPublishingOnly(translog.TrustedPublishingOnlyEvent{Time: at, Owner: "acme", Pack: "widget", Only: true, By: "alice"}),
			"2026-11-22 22:00 acme set widget to trusted publishing only: only CI may publish it (by alice)"},
		{"trusted publishing only, off", translog.NewTrustedPublishingOnly(translog.TrustedPublishingOnlyEvent{Time: at, Owner: "acme", Pack: "widget", By: "bob"}),
			"2026-11-22 22:00 acme took widget off trusted publishing only: tokens and SSH keys may publish it again (by bob)"},
		{"a kind from a later version", &translog.Entry{Kind: "member-add", Time: at, Fields: []translog.Field{{Key: "owner", Value: "alice"}, {Key: "member", Value: "bob"}}},
			"2026-11-22 22:00 alice member-add member=bob"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := translog.Parse(tc.entry.Marshal())
			if err != nil {
				t.Fatal(err)
			}
			if got := describeLogEvent(e); got != tc.want {
				t.Errorf("describeLogEvent =\n %q, want\n %q", got, tc.want)
			}
			if _, err := json.Marshal(logEventJSON(7, e)); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestLogEventJSON(t *testing.T) {
	e := translog.NewYank(translog.YankEvent{Time: time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC), Owner: "alice", Pack: "widget", Version: "1.2.0", Reason: "broken"})
	got := logEventJSON(7, e)
	want := map[string]any{"index": int64(7), "kind": "yank", "time": "2026-11-22T22:00:00Z", "owner": "alice", "pack": "widget", "version": "1.2.0", "reason": "broken"}
	if len(got) != len(want) {
		t.Fatalf("logEventJSON = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}
