package wire_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pact-registry/pact/pkg/wire"
)

// Bytes must decode every string exactly as encoding/json does: a
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
		var got wire.Bytes
		gotErr := json.Unmarshal([]byte(in), &got)
		if (wantErr != nil) != (gotErr != nil) {
			t.Errorf("%q: encoding/json error %v, Bytes error %v", in, wantErr, gotErr)
			continue
		}
		if wantErr == nil && !bytes.Equal(got, []byte(want)) {
			t.Errorf("%q: Bytes decoded %q, encoding/json %q", in, got, want)
		}
	}
}

func FuzzJSONBytesDecodesAsEncodingJSON(f *testing.F) {
	f.Add(`"\ud83d\ude00 \u0041\n"`)
	f.Add("\"\xff\"")
	f.Fuzz(func(t *testing.T, in string) {
		var want string
		wantErr := json.Unmarshal([]byte(in), &want)
		var got wire.Bytes
		gotErr := json.Unmarshal([]byte(in), &got)
		if (wantErr != nil) != (gotErr != nil) || (wantErr == nil && !bytes.Equal(got, []byte(want))) {
			t.Errorf("%q: Bytes %q (%v), encoding/json %q (%v)", in, got, gotErr, want, wantErr)
		}
	})
}

// A client sends a document as encoding/json sends the same text as a
// string: escaped alike, invalid UTF-8 replaced alike, never base64.
func TestBytesEncodesAsAString(t *testing.T) {
	for _, in := range []string{"", "plain", "<a href=\"x\">&</a>", "tab\tline\n", "caf\xc3\xa9", "\xff\xfe", "\u2028"} {
		want, _ := json.Marshal(struct {
			C string `json:"c"`
		}{in})
		got, err := json.Marshal(struct {
			C wire.Bytes `json:"c"`
		}{wire.Bytes(in)})
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%q: encoded %s (%v), want %s", in, got, err, want)
		}
	}
}
