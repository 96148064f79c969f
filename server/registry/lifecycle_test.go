package registry_test

import (
	"testing"

	"github.com/pact-registry/pact/server/registry"
)

// LatestOf chooses among the versions left when some are yanked, in
// publish order, by the one rule of BecomesLatest.
func TestLatestOf(t *testing.T) {
	for _, tc := range []struct {
		name     string
		versions []string
		want     int
	}{
		{"none left", nil, -1},
		{"one", []string{"1.0.0"}, 0},
		{"highest release, not last publish", []string{"1.0.0", "2.0.0", "1.3.1"}, 1},
		{"release before pre-release", []string{"1.0.0", "3.0.0-rc.1"}, 0},
		{"only pre-releases: the highest", []string{"2.0.0-rc.2", "2.0.0-rc.10", "2.0.0-rc.3"}, 1},
		{"semver outranks other names", []string{"0.0.1", "draft", "2024-05"}, 0},
		{"other names: the last publish", []string{"draft", "2024-05", "nightly"}, 2},
		{"equal precedence: the last publish", []string{"v1.0.0", "1.0.0", "0.9.0"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := registry.LatestOf(tc.versions); got != tc.want {
				t.Errorf("LatestOf(%q) = %d, want %d", tc.versions, got, tc.want)
			}
		})
	}
}
