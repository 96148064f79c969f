package wire_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/pact-registry/pact/pkg/wire"
)

// Times go out as RFC 3339 in UTC with whole seconds, whatever the zone and
// precision the store hands over (PostgreSQL keeps microseconds).
func TestTimesAreUTCWholeSeconds(t *testing.T) {
	india := time.FixedZone("IST", 5*3600+1800)
	for _, tc := range []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), `"2026-03-01T12:00:00Z"`},
		{time.Date(2026, 3, 1, 12, 0, 0, 999_999_999, time.UTC), `"2026-03-01T12:00:00Z"`},
		{time.Date(2026, 3, 1, 12, 0, 5, 123_456_000, india), `"2026-03-01T06:30:05Z"`},
		{time.Time{}, `"0001-01-01T00:00:00Z"`},
	} {
		got, err := json.Marshal(wire.Time(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("%v: %s (%v), want %s", tc.in, got, err, tc.want)
		}
		optional := tc.in
		got, err = json.Marshal(wire.OptionalTime(&optional))
		if err != nil || string(got) != tc.want {
			t.Errorf("optional %v: %s (%v), want %s", tc.in, got, err, tc.want)
		}
	}
	if got, _ := json.Marshal(wire.OptionalTime(nil)); string(got) != "null" {
		t.Errorf("an unknown time is %s, want null", got)
	}
	// A time read from the clock carries a monotonic reading; it must not
	// leak into the text either.
	if got, _ := json.Marshal(wire.Time(time.Now())); len(got) != len(`"2026-03-01T12:00:00Z"`) {
		t.Errorf("now is %s, want whole seconds in UTC", got)
	}
}

// An optional request field is left out when empty, sent when set.
func TestOptionalLeavesOutEmptyFields(t *testing.T) {
	got, _ := json.Marshal(wire.PublishRequest{Content: wire.Bytes("doc"), Name: wire.Optional(""), Description: wire.Optional("d")})
	if want := `{"content":"doc","description":"d"}`; string(got) != want {
		t.Errorf("encoded %s, want %s", got, want)
	}
}
