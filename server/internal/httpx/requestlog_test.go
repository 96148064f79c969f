package httpx

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"
)

// The request line written by hand is the line slog's JSON handler writes
// for the same record, for any path a client can send.
func TestRequestLineIsSlogs(t *testing.T) {
	at := time.Date(2026, 11, 23, 1, 2, 3, 456789000, time.UTC)
	paths := []string{
		"/raw/alice/doc.pact.md", `/a"b\c`, "/tab\there\nnl\rcr", "/ctl\x00\x01\x1f\x7f", "/bad\xff\xfeutf8",
		"/sep\u2028\u2029", "/html<&>", "/bs\b ff\f", "/ünïcødé/日本", "", "/emoji🙂",
	}
	durations := []time.Duration{0, time.Microsecond, 1234 * time.Microsecond, 999 * time.Millisecond, 12*time.Second + 345*time.Microsecond, 7 * time.Millisecond}
	for i, path := range paths {
		d := durations[i%len(durations)]
		var want bytes.Buffer
		slog.New(slog.NewJSONHandler(&want, nil)).LogAttrs(context.Background(), slog.LevelInfo, "request",
			slog.String("request_id", "abc"), slog.String("method", "GET"), slog.String("route", "/raw/:owner/:file"),
			slog.String("path", path), slog.Int("status", 200), slog.Float64("duration_ms", float64(d.Microseconds())/1000),
			slog.Int("bytes", 3000), slog.String("remote", "127.0.0.1"))
		// slog stamps its own time; put ours in its place.
		wantLine := want.Bytes()
		wantLine = append(appendRFC3339Millis([]byte(`{"time":"`), at), wantLine[bytes.Index(wantLine, []byte(`","level"`)):]...)
		got := appendRequestLine(nil, at, "abc", "GET", "/raw/:owner/:file", path, 200, d, 3000, "127.0.0.1")
		if !bytes.Equal(got, wantLine) {
			t.Errorf("path %q, %s:\n got %s\nwant %s", path, d, got, wantLine)
		}
	}
}

func TestRequestIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 10000 {
		v := newRequestID()
		if len(v) != 1 || !validRequestID.MatchString(v[0]) || len(v[0]) != requestIDLength {
			t.Fatalf("request id %q", v)
		}
		if seen[v[0]] {
			t.Fatalf("request id %s made twice", v[0])
		}
		seen[v[0]] = true
	}
}

// Lines logged within one millisecond share one formatted time; it must be
// the time each line would have had on its own, in its own zone.
func TestLogTimesSharedWithinAMillisecond(t *testing.T) {
	east := time.FixedZone("east", 5*3600+30*60)
	base := time.Date(2026, 11, 24, 23, 59, 59, 998_700_000, time.UTC)
	for _, step := range []time.Duration{0, 100 * time.Microsecond, 250 * time.Microsecond, time.Millisecond, 1300 * time.Microsecond, 2 * time.Millisecond} {
		for _, at := range []time.Time{base.Add(step), base.Add(step).In(east), base.Add(step).Local(), base.Add(step)} {
			got := string(appendRFC3339Millis([]byte("x"), at))
			if want := string(formatRFC3339Millis([]byte("x"), at)); got != want {
				t.Errorf("%v: %s, want %s", at, got, want)
			}
		}
	}
	if got := string(appendRFC3339Millis(nil, base.Add(1300*time.Microsecond))); got != "2026-11-25T00:00:00.000Z" {
		t.Errorf("across midnight: %s", got)
	}
}

// One request's log line, stamped with the time as a request is.
func BenchmarkRequestLine(b *testing.B) {
	buf := make([]byte, 0, 512)
	for b.Loop() {
		buf = appendRequestLine(buf[:0], time.Now(), "PwDmtjzPr6BJ51MCBv8m", "GET", "/raw/:owner/:file",
			"/raw/owner-0000/pack-0000000.pact.md", 200, 123*time.Microsecond, 3000, "127.0.0.1")
	}
}
