package httpx

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// The request log line, written without slog: it is on every request, and
// slog's Record, attributes and float formatting (through encoding/json)
// were the largest cost of pactd's own on the raw path (BENCHMARKS.md).
// The line is byte for byte what slog.NewJSONHandler writes for the same
// record (requestlog_test.go holds it to that), so the log stays one format.

var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// writeRequestLine writes one request's log line to sh.RequestLog in one
// Write.
func (sh *Shared) writeRequestLine(at time.Time, id, method, route, path string, status int, elapsed time.Duration, size int, remote string) {
	bp := lineBuffers.Get().(*[]byte)
	b := appendRequestLine((*bp)[:0], at, id, method, route, path, status, elapsed, size, remote)
	_, _ = sh.RequestLog.Write(b)
	if cap(b) <= 64<<10 { // a huge path does not stay in the pool
		*bp = b
		lineBuffers.Put(bp)
	}
}

func appendRequestLine(b []byte, at time.Time, id, method, route, path string, status int, elapsed time.Duration, size int, remote string) []byte {
	b = append(b, `{"time":"`...)
	b = appendRFC3339Millis(b, at)
	b = append(b, `","level":"INFO","msg":"request","request_id":`...)
	b = appendJSONString(b, id)
	b = append(b, `,"method":`...)
	b = appendJSONString(b, method)
	b = append(b, `,"route":`...)
	b = appendJSONString(b, route)
	b = append(b, `,"path":`...)
	b = appendJSONString(b, path)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, `,"duration_ms":`...)
	b = appendMillis(b, elapsed)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, int64(size), 10)
	b = append(b, `,"remote":`...)
	b = appendJSONString(b, remote)
	return append(b, "}\n"...)
}

// appendMillis writes a duration in milliseconds to the microsecond, as
// encoding/json writes the float64 µs/1000 (shortest form, no exponent in
// the range a request takes).
func appendMillis(b []byte, d time.Duration) []byte {
	return strconv.AppendFloat(b, float64(d.Microseconds())/1000, 'f', -1, 64)
}

// appendRFC3339Millis is slog's time format: RFC 3339 with exactly three
// fractional digits. Requests logged within one millisecond share one
// formatting (lastStamp): at tens of thousands of requests a second, most
// lines find their time formatted, which halves a line's cost
// (BenchmarkRequestLine; BENCHMARKS.md).
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	ms, loc := t.UnixMilli(), t.Location()
	if s := lastStamp.Load(); s != nil && s.ms == ms && s.loc == loc {
		return append(b, s.text...)
	}
	n := len(b)
	b = formatRFC3339Millis(b, t)
	lastStamp.Store(&stamp{ms: ms, loc: loc, text: string(b[n:])})
	return b
}

// stamp is one millisecond's time as appendRFC3339Millis writes it, in one
// location.
type stamp struct {
	ms   int64
	loc  *time.Location
	text string
}

var lastStamp atomic.Pointer[stamp]

func formatRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...) // drop the 4th digit
}

// appendJSONString quotes s as slog's JSON handler does (AppendEscaped
// without HTML escaping).
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	b = AppendEscaped(b, s, false)
	return append(b, '"')
}

// AppendEscaped appends the content of a JSON string holding s: ", \ and
// control characters escaped, invalid UTF-8 as \ufffd, U+2028 and U+2029
// escaped, everything else as it is. With html it escapes as encoding/json
// does (<, > and & as \u escapes, \b and \f as such); without, as slog's
// JSON handler does (both as \u escapes, <, > and & as they are). The
// request log (TestRequestLineIsSlogs) and the hand-encoded answers
// (TestPackageListJSONIsEncodingJSON) hold it to those bytes.
func AppendEscaped(b []byte, s string, html bool) []byte {
	const hex = "0123456789abcdef"
	safe := &jsonSafe
	if html {
		safe = &jsonSafeHTML
	}
	start := 0
	for i := 0; i < len(s); {
		// A document's strings are mostly runs of bytes that stay as they
		// are.
		if i = skipSafe(s, i, html, safe); i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case html && c == '\b':
				b = append(b, '\\', 'b')
			case html && c == '\f':
				b = append(b, '\\', 'f')
			default: // other control characters; <, > and & with html
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}

// jsonSafe and jsonSafeHTML hold, for each byte, whether AppendEscaped
// copies it as it is when it stands alone: ASCII from space on, but for "
// and \ (and <, > and & with html). Bytes from 0x80 on are looked at as
// UTF-8.
var jsonSafe, jsonSafeHTML = func() (plain, html [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		plain[c] = c != '"' && c != '\\'
		html[c] = plain[c] && c != '<' && c != '>' && c != '&'
	}
	return plain, html
}()

// IsASCII reports whether every byte of s is below 0x80.
func IsASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if load8(s, i)&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// load8 is the eight bytes of s from i on, the first in the low byte.
func load8(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// skipSafe returns the index of the first byte of s from i on that is not
// safe (jsonSafe, or jsonSafeHTML with html), or len(s). It looks at eight
// bytes at a time: x&highs finds bytes from 0x80 on; once every byte is
// below 0x80, (v-ones)&^v&highs is exact in telling whether a byte of v is
// zero, and (x-0x20*ones)&^x&highs whether a byte of x is below 0x20.
func skipSafe(s string, i int, html bool, safe *[256]bool) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	const quote, backslash = '"' * ones, '\\' * ones
	const lt, gt, amp = '<' * ones, '>' * ones, '&' * ones
	for ; i+8 <= len(s); i += 8 {
		x := load8(s, i)
		bad := x | (x-0x20*ones)&^x
		q, bs := x^quote, x^backslash
		bad |= (q-ones)&^q | (bs-ones)&^bs
		if html {
			l, g, a := x^lt, x^gt, x^amp
			bad |= (l-ones)&^l | (g-ones)&^g | (a-ones)&^a
		}
		if bad&highs != 0 {
			break
		}
	}
	for i < len(s) && safe[s[i]] {
		i++
	}
	return i
}
