package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/registry"
)

// The release of the version a package page shows (docs/protocol.md,
// Releases): its artifacts with their digests, the index that lists them
// and the source commit. templates/parts/release.html draws it.

type releaseView struct {
	ArtifactIndexURL string
	ContractURL      string
	SourceGitCommit  string
	Digest           string // sha256:<hex> of the release record
	CreatedAt        time.Time
	LogIndex         *int64
	APIURL           string
	Artifacts        []artifactView
}

type artifactView struct {
	Name      string
	URL       string
	Digest    string // sha256:<hex> or the digest field as sent; "" when neither
	Size      string // "" when not given
	MediaType string
}

// releaseOf answers the view of v's release, nil when it has none (or it
// cannot be read: the page shows the version without it).
func (pages *Pages) releaseOf(c *gin.Context, p *registry.Package, v *registry.Version) *releaseView {
	if !v.HasRelease {
		return nil
	}
	r, err := pages.svc.Release(c, p.OwnerSlug, p.PackSlug, v.Version)
	if err != nil {
		return nil
	}
	out := &releaseView{ArtifactIndexURL: r.ArtifactIndexURL, ContractURL: r.ContractURL, SourceGitCommit: r.SourceGitCommit,
		Digest: "sha256:" + r.SHA256, CreatedAt: r.CreatedAt, LogIndex: r.LogIndex,
		APIURL: "/api/contracts/" + r.Owner + "/" + r.Pack + "/releases/" + v.Version}
	for _, raw := range r.Artifacts {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var a map[string]any
		if dec.Decode(&a) != nil {
			continue
		}
		text := func(k string) string { s, _ := a[k].(string); return s }
		av := artifactView{Name: text("name"), URL: text("url"), MediaType: text("media_type"), Digest: text("digest")}
		if sum := text("sha256"); sum != "" {
			av.Digest = "sha256:" + sum
		}
		if n, ok := a["size"].(json.Number); ok {
			av.Size = fmt.Sprintf("%s bytes", n)
		}
		out.Artifacts = append(out.Artifacts, av)
	}
	return out
}
