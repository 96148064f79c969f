package validate

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
)

const validDoc = "# Hi\n\n```yaml pact:pack\nname: Hi There\nversion: 1.0\nscheme: chat\n```\n"

func TestRunValidate(t *testing.T) {
	tests := []struct {
		name       string
		stdin      string
		json       bool
		wantErr    bool
		wantStdout string
		wantStderr string
	}{
		{"valid", validDoc, false, false, "hi-there", ""},
		{"valid as JSON", validDoc, true, false, `"slug": "hi-there"`, ""},
		{"no block", "# nothing\n", false, true, "", "-: "},
		{"two blocks", validDoc + validDoc, false, true, "", "-:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ios, stdout, stderr := iostreams.Test(tc.stdin)
			err := runValidate(context.Background(), &validateOptions{IO: ios, Files: []string{"-"}, JSON: tc.json})
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v", err)
			}
			if !strings.Contains(stdout.String(), tc.wantStdout) || !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("stdout %q stderr %q", stdout.String(), stderr.String())
			}
			if tc.json {
				var results []shared.Validation
				if err := json.Unmarshal(stdout.Bytes(), &results); err != nil || len(results) != 1 || results[0].Version != "1.0" {
					t.Errorf("JSON %q: %v", stdout.String(), err)
				}
			}
		})
	}
}
