package web

import (
	"net/url"
	"path"
	"strings"

	"github.com/pact-registry/pact/server/registry"
)

// builtBy says which CI job published a version through trusted
// publishing, as the version's page shows it: "github.com/alice/widget,
// workflow release.yml at 3f2a9c1…" (docs/protocol.md, Trusted publishing).
func builtBy(ci *registry.CIIdentity) string {
	if ci == nil {
		return ""
	}
	host := ci.Issuer
	switch ci.Issuer {
	case "https://token.actions.githubusercontent.com":
		host = "github.com"
	default:
		if u, err := url.Parse(ci.Issuer); err == nil && u.Host != "" {
			host = u.Host
		}
	}
	var b strings.Builder
	b.WriteString(host)
	if ci.Repository != "" {
		b.WriteString("/" + ci.Repository)
	}
	if ci.Workflow != "" {
		// alice/widget/.github/workflows/release.yml@refs/heads/main, or
		// gitlab.com/bob/tool//.gitlab-ci.yml@refs/heads/main: the file.
		file, _, _ := strings.Cut(ci.Workflow, "@")
		b.WriteString(", workflow " + path.Base(file))
	}
	if ci.SHA != "" {
		sha := ci.SHA
		if len(sha) > 7 {
			sha = sha[:7] + "…"
		}
		b.WriteString(" at " + sha)
	}
	if ci.RunID != "" {
		b.WriteString(" (run " + ci.RunID + ")")
	}
	return b.String()
}
