package text

import (
	"strconv"
	"time"
)

// Plural counts things in words: "1 entry", "3 entries", "0 packages".
func Plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}

// PluralText is Plural for a count given as text (a field of a log entry);
// text that is not a number is kept as it is.
func PluralText(n, one, many string) string {
	if count, err := strconv.ParseInt(n, 10, 64); err == nil {
		return Plural(count, one, many)
	}
	return n + " " + many
}

// FormatTime prints a timestamp compactly, in UTC.
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// OrNone shows a version that may be "" (none: every version yanked).
func OrNone(v string) string {
	if v == "" {
		return "none (every version yanked)"
	}
	return v
}
