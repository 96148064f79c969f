package iostreams

import (
	"strings"
	"testing"
)

func TestColorWanted(t *testing.T) {
	tests := []struct {
		name     string
		terminal bool
		env      map[string]string
		want     bool
	}{
		{"terminal", true, nil, true},
		{"not a terminal", false, nil, false},
		{"NO_COLOR", true, map[string]string{"NO_COLOR": "1"}, false},
		{"dumb terminal", true, map[string]string{"TERM": "dumb"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ColorWanted(tc.terminal, func(k string) string { return tc.env[k] }); got != tc.want {
				t.Errorf("colorWanted = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMessagesAreUncolouredOffTerminals(t *testing.T) {
	ios, _, stderr := Test("")
	ios.Success("done %d", 1)
	if stderr.String() != "✓ done 1\n" || strings.Contains(ios.ErrorPrefix(), "\x1b") {
		t.Errorf("stderr %q, error prefix %q", stderr.String(), ios.ErrorPrefix())
	}
	ios.Color = true
	if !strings.Contains(ios.ErrorPrefix(), "\x1b[31m") {
		t.Error("no colour on a colour terminal")
	}
}
