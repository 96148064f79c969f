package shared

import (
	"testing"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
)

func TestParseMyPackRef(t *testing.T) {
	tests := []struct {
		ref                  string
		owner, pack, version string
		ok                   bool
	}{
		{"hello", "", "hello", "", true},
		{"hello@1.0.0", "", "hello", "1.0.0", true},
		{"alice/hello@latest", "alice", "hello", "latest", true},
		{"", "", "", "", false},
		{"@1.0.0", "", "", "", false},
		{"hello@", "", "", "", false},
		{"/hello", "", "", "", false},
		{"alice/", "", "", "", false},
		{"alice/hello/extra", "", "", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.ref, func(t *testing.T) {
			owner, pack, version, err := ParseMyPackRef(tc.ref)
			if (err == nil) != tc.ok || owner != tc.owner || pack != tc.pack || version != tc.version {
				t.Errorf("parseMyPackRef = %q %q %q %v", owner, pack, version, err)
			}
		})
	}
}

func TestParsePackRef(t *testing.T) {
	tests := []struct {
		ref                  string
		owner, pack, version string
		ok                   bool
	}{
		{"alice/hello", "alice", "hello", "", true},
		{"alice/hello@1.0.0", "alice", "hello", "1.0.0", true},
		{"alice/hello@1.0.0+build.5", "alice", "hello", "1.0.0+build.5", true},
		{"alice", "", "", "", false},
		{"alice/", "", "", "", false},
		{"/hello", "", "", "", false},
		{"alice/hello@", "", "", "", false},
		{"alice/hello/extra", "", "", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.ref, func(t *testing.T) {
			owner, pack, version, err := ParsePackRef(tc.ref)
			if (err == nil) != tc.ok || owner != tc.owner || pack != tc.pack || version != tc.version {
				t.Errorf("parsePackRef = %q %q %q %v", owner, pack, version, err)
			}
			if err != nil {
				if code, _ := cmdutil.ExitStatus(err); code != cmdutil.ExitUsage {
					t.Errorf("a bad reference exits %d, want %d", code, cmdutil.ExitUsage)
				}
			}
		})
	}
}
