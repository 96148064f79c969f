package shared

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/pact-registry/pact/cmd/pact/internal/text"
)

// DescribeScopes says what a token's scopes and packages allow, for people.
func DescribeScopes(scopes, packages *[]string) (string, string) {
	s, p := "all", "all"
	if scopes != nil {
		s = strings.Join(*scopes, ",")
		if s == "" {
			s = "none (read only)"
		}
	}
	if packages != nil {
		p = strings.Join(*packages, ",")
	}
	return s, p
}

// DescribeExpiry is when a token expires, "never", and "(expired)" after
// a time past.
func DescribeExpiry(t *time.Time, now time.Time) string {
	s := OptionalTime(t, "never")
	if t != nil && !now.Before(*t) {
		s += " (expired)"
	}
	return s
}

// DescribeClaims lists claims as name=value, sorted, for people.
func DescribeClaims(claims map[string]string) string {
	parts := make([]string, 0, len(claims))
	for _, name := range slices.Sorted(maps.Keys(claims)) {
		parts = append(parts, name+"="+claims[name])
	}
	return strings.Join(parts, " ")
}

func OptionalTime(t *time.Time, none string) string {
	if t == nil {
		return none
	}
	return text.FormatTime(*t)
}
