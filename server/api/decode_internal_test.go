package api

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pact-registry/pact/server/registry"
)

func TestScanJSON(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	cases := []struct {
		in, msg string // msg "" means accepted
	}{
		{`{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}`, ""},
		{`{"x":` + deep(maxJSONDepth-1) + `}`, ""},
		{`{"x":` + deep(maxJSONDepth) + `}`, "deeper than 32"},
		{strings.Repeat("[", 4<<20), "deeper than 32"},
		{strings.Repeat(`{"a":`, 40), "deeper than 32"},
		{`{"s":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}`, ""},
		{`{"a":1,"a":2}`, `"a" twice`},
		{`{"content":"x","Content":"y"}`, `"Content" twice`},
		{`{"content":"x","\u0063ontent":"y"}`, `"content" twice`},
		{`{"name":"x","NAME":"y"}`, `"NAME" twice`},
		{`{"k":"x","\u212a":"y"}`, "twice"}, // KELVIN SIGN folds to k, as encoding/json matches it
		{`{"a":{"b":1,"b":2}}`, `"b" twice`},
		{`{"a":"\"a\"","b":"a"}`, ""},
		{`{"a":"x\\","a":"y"}`, `"a" twice`},
		{`{} {}`, "after the JSON object"},
		{`{}x`, "after the JSON object"},
		{"{} \n\t", ""},
		{`{"unterminated`, ""},
		{`]]]]{}`, ""},
	}
	for _, tc := range cases {
		err := scanJSON([]byte(tc.in))
		name := tc.in
		if len(name) > 60 {
			name = name[:60] + "..."
		}
		switch {
		case tc.msg == "" && err != nil:
			t.Errorf("%s: %v, want it accepted", name, err)
		case tc.msg != "" && (err == nil || !strings.Contains(err.Error(), tc.msg) || registry.ErrorCode(err) != registry.Invalid):
			t.Errorf("%s: %v, want a 400 that says %q", name, err, tc.msg)
		}
	}
}

// Scanning a body of brackets stops at the depth limit: it costs no memory
// per level, whatever the body's length.
func TestScanJSONDoesNotAllocatePerLevel(t *testing.T) {
	nested := bytes.Repeat([]byte("["), 4<<20)
	if allocs := testing.AllocsPerRun(5, func() { _ = scanJSON(nested) }); allocs > 5 {
		t.Errorf("scanning 4 MiB of '[' made %.0f allocations, want a handful", allocs)
	}
}
