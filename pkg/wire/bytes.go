package wire

import (
	"encoding/json"
	"reflect"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Bytes is a JSON string held as bytes: a pack document. It is decoded
// straight into bytes of exactly its decoded length: encoding/json would
// unquote into a buffer as long as the escaped text (a document written as
// \u0041... is six times its size), copy that into a string, and a publish
// would copy it once more. A JSON null leaves it nil.
type Bytes []byte

// MarshalJSON writes b as a JSON string, as encoding/json writes a string
// (invalid UTF-8 becomes U+FFFD), not as base64.
func (b Bytes) MarshalJSON() ([]byte, error) { return json.Marshal(string(b)) }

// UnmarshalJSON decodes a JSON string exactly as encoding/json decodes one
// into a string.
func (t *Bytes) UnmarshalJSON(data []byte) error {
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		if string(data) == "null" {
			return nil
		}
		return &json.UnmarshalTypeError{Value: jsonKind(data), Type: reflect.TypeFor[string]()}
	}
	body := data[1 : len(data)-1]
	_, n, ok := unquoteJSON(nil, body, false)
	if !ok {
		return &json.UnmarshalTypeError{Value: "string", Type: reflect.TypeFor[string]()}
	}
	*t, _, _ = unquoteJSON(make([]byte, 0, n), body, true)
	return nil
}

// jsonKind names a JSON value the way encoding/json's type errors do.
func jsonKind(data []byte) string {
	switch {
	case len(data) == 0:
		return "value"
	case data[0] == '{':
		return "object"
	case data[0] == '[':
		return "array"
	case data[0] == 't' || data[0] == 'f':
		return "bool"
	}
	return "number"
}

// unquoteJSON decodes s, the text between a JSON string's quotes, exactly
// as encoding/json does: invalid UTF-8 and unpaired surrogates become
// U+FFFD. It appends the text to dst when write is set, and in any case
// returns the decoded length; ok is false when s is not the inside of a
// valid JSON string.
func unquoteJSON(dst, s []byte, write bool) (out []byte, n int, ok bool) {
	var buf [utf8.UTFMax]byte
	emit := func(p []byte) {
		n += len(p)
		if write {
			dst = append(dst, p...)
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return dst, n, false
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				emit(s[i+1 : i+2])
			case 'b', 'f', 'n', 'r', 't':
				buf[0] = controlEscape(e)
				emit(buf[:1])
			case 'u':
				r := hex4(s[i:])
				if r < 0 {
					return dst, n, false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if dec := utf16.DecodeRune(r, hex4(s[i:])); dec != unicode.ReplacementChar {
						r = dec
						i += 6
					} else {
						r = unicode.ReplacementChar
					}
				}
				emit(buf[:utf8.EncodeRune(buf[:], r)])
				continue
			default:
				return dst, n, false
			}
			i += 2
		case c == '"' || c < ' ':
			return dst, n, false
		case c < utf8.RuneSelf:
			emit(s[i : i+1])
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				emit(buf[:utf8.EncodeRune(buf[:], unicode.ReplacementChar)])
			} else {
				emit(s[i : i+size])
			}
			i += size
		}
	}
	return dst, n, true
}

// hex4 reads the \uXXXX escape at the start of s, or returns -1.
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// controlEscape is the byte a one-letter escape such as \n stands for.
func controlEscape(e byte) byte {
	switch e {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	}
	return '\t'
}
