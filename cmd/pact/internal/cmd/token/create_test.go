package token

import (
	"testing"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
)

func TestParseExpiresIn(t *testing.T) {
	tests := []struct {
		in   string
		days int
		ok   bool
	}{
		{"30d", 30, true},
		{"30", 30, true},
		{"1", 1, true},
		{"3650d", 3650, true},
		{"90D", 90, true},
		{"never", 0, true},
		{"0", 0, false},
		{"3651", 0, false},
		{"30h", 0, false},
		{"720h", 0, false},
		{"-1d", 0, false},
		{"+5", 0, false},
		{"d", 0, false},
		{"", 0, false},
		{"1.5d", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			days, err := parseExpiresIn(tc.in)
			if (err == nil) != tc.ok || days != tc.days {
				t.Errorf("parseExpiresIn(%q) = %d, %v", tc.in, days, err)
			}
			if err != nil {
				if code, _ := cmdutil.ExitStatus(err); code != cmdutil.ExitUsage {
					t.Errorf("exit code %d, want %d", code, cmdutil.ExitUsage)
				}
			}
		})
	}
}
