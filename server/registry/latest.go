package registry

import (
	"strings"

	"github.com/Masterminds/semver/v3"
)

// LatestAlias names a package's latest version wherever a version is
// accepted (raw URLs, pages, the CLI). No version may be published under it.
const LatestAlias = "latest"

// IsLatestAlias reports whether version asks for the latest version rather
// than naming one.
func IsLatestAlias(version string) bool { return strings.EqualFold(version, LatestAlias) }

// parseSemver parses a semantic version, allowing one leading "v". Loose
// forms ("1", "1.2") are not semantic versions: they order by publish time
// like any other name.
func parseSemver(version string) *semver.Version {
	v, err := semver.StrictNewVersion(strings.TrimPrefix(version, "v"))
	if err != nil {
		return nil
	}
	return v
}

// BecomesLatest reports whether candidate, published after current, takes
// its place as the package's latest version. This is the one rule of which
// version is latest:
//   - semantic versions (a leading "v" allowed) outrank every other name;
//   - among them a release outranks every pre-release, and otherwise the
//     higher precedence wins;
//   - the later publish wins between names that are not semantic versions
//     and between semantic versions of equal precedence ("1.0.0" and
//     "v1.0.0", or builds differing only in metadata).
//
// current is "" when the package has no version yet.
func BecomesLatest(current, candidate string) bool {
	if current == "" {
		return true
	}
	cur, cand := parseSemver(current), parseSemver(candidate)
	switch {
	case cand == nil:
		return cur == nil
	case cur == nil:
		return true
	}
	curPre, candPre := cur.Prerelease() != "", cand.Prerelease() != ""
	if curPre != candPre {
		return curPre
	}
	return cand.Compare(cur) >= 0
}
