package server

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pact-registry/pact/server/registry"
)

// jsonBytes must decode every string exactly as encoding/json does: a
// signed publish is verified over the decoded content, so any difference
// would turn a valid signature into a refusal, or the other way round.
func TestJSONBytesDecodesAsEncodingJSON(t *testing.T) {
	inputs := []string{
		`""`, `"plain"`, `"\u0041\u00e9\u4e16"`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00x"`, `"\ud800\u0041"`,
		`"\ud800\ud800"`, `"a\"b\\c\/d\b\f\n\r\t"`, "\"\xff\xfe\"", "\"\xed\xa0\x80\"", "\"caf\xc3\xa9\"",
		"\"\xc3\"", `"\u00zz"`, `"\x"`, `"\'"`, "\"tab\there\"", `"\`, `"\u12"`,
	}
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{`\u0041`, `\ud83d`, `\ude00`, `\n`, `\\`, `\"`, "a", "\xff", "é", `\u00e9`, `\/`, "\x80", "世"}
	for range 2000 {
		var b strings.Builder
		b.WriteByte('"')
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		b.WriteByte('"')
		inputs = append(inputs, b.String())
	}
	for _, in := range inputs {
		var want string
		wantErr := json.Unmarshal([]byte(in), &want)
		var got jsonBytes
		gotErr := json.Unmarshal([]byte(in), &got)
		if (wantErr != nil) != (gotErr != nil) {
			t.Errorf("%q: encoding/json error %v, jsonBytes error %v", in, wantErr, gotErr)
			continue
		}
		if wantErr == nil && !bytes.Equal(got, []byte(want)) {
			t.Errorf("%q: jsonBytes decoded %q, encoding/json %q", in, got, want)
		}
	}
}

func FuzzJSONBytesDecodesAsEncodingJSON(f *testing.F) {
	f.Add(`"\ud83d\ude00 \u0041\n"`)
	f.Add("\"\xff\"")
	f.Fuzz(func(t *testing.T, in string) {
		var want string
		wantErr := json.Unmarshal([]byte(in), &want)
		var got jsonBytes
		gotErr := json.Unmarshal([]byte(in), &got)
		if (wantErr != nil) != (gotErr != nil) || (wantErr == nil && !bytes.Equal(got, []byte(want))) {
			t.Errorf("%q: jsonBytes %q (%v), encoding/json %q (%v)", in, got, gotErr, want, wantErr)
		}
	})
}

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
