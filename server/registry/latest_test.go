package registry_test

import (
	"testing"

	"github.com/pact-registry/pact/server/registry"
)

func TestBecomesLatest(t *testing.T) {
	for _, tc := range []struct {
		current, candidate string
		want               bool
	}{
		{"", "1.0.0", true},
		{"", "draft", true},
		{"2.0.0", "1.3.1", false},
		{"1.3.1", "2.0.0", true},
		{"1.0.0", "2.0.0-rc.1", false},
		{"2.0.0-rc.1", "1.0.0", true},
		{"2.0.0-rc.1", "2.0.0-rc.2", true},
		{"2.0.0-rc.2", "2.0.0-rc.1", false},
		{"1.0.0-alpha.10", "1.0.0-alpha.9", false},
		{"1.0.0-beta", "1.0.0-alpha", false},
		{"1.9.0", "1.10.0", true},
		{"1.10.0", "v1.2.0", false},
		{"v1.2.0", "1.10.0", true},
		{"v1.10.0", "1.9.9", false},
		{"draft", "1.0.0", true},
		{"draft", "0.0.1-rc.1", true},
		{"1.0.0", "draft", false},
		{"0.0.1-rc.1", "zzz", false},
		{"draft", "final", true},
		{"final", "draft", true},
		// Loose forms are names, not semantic versions.
		{"1.0.0", "2", false},
		{"1.0.0", "2.1", false},
		{"2", "1.0.0", true},
		{"V2.0.0", "1.0.0", true},
		// Equal precedence: the later publish wins.
		{"1.0.0", "v1.0.0", true},
		{"1.0.0+a", "1.0.0+b", true},
		{"1.0.0", "1.0.0", true},
	} {
		if got := registry.BecomesLatest(tc.current, tc.candidate); got != tc.want {
			t.Errorf("BecomesLatest(%q, %q) = %v, want %v", tc.current, tc.candidate, got, tc.want)
		}
	}
}

func TestIsLatestAlias(t *testing.T) {
	for v, want := range map[string]bool{"latest": true, "Latest": true, "LATEST": true, "1.0.0": false, "latest1": false, "": false} {
		if got := registry.IsLatestAlias(v); got != want {
			t.Errorf("IsLatestAlias(%q) = %v, want %v", v, got, want)
		}
	}
}
