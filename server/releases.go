package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// Releases (docs/protocol.md, Releases): registering one needs a token
// with the publish scope for its pack (the pack is in the body, so the
// domain checks it); reading them is public.
//
// contract_id in a path is one segment encoded (alice%2Fwidget) or two
// (alice/widget): the router matches the decoded path (gin's UseRawPath
// is off), where both are /alice/widget/.

func (s *Server) routeReleases(api, token *gin.RouterGroup) {
	token.POST("/releases", s.requireScope(registry.ScopePublish), s.registerRelease)
	httpx.GetAndHead(api, "/contracts/:owner/:pack/releases", s.listReleases)
	httpx.GetAndHead(api, "/contracts/:owner/:pack/releases/:version", s.getRelease)
}

// releaseBody is wire.ReleaseRequest as the server reads it: pointers
// tell a missing field, and each artifact stays raw so that an error can
// name its index.
type releaseBody struct {
	ContractID       *string           `json:"contract_id"`
	Version          *string           `json:"version"`
	ArtifactIndexURL *string           `json:"artifact_index_url"`
	Artifacts        []json.RawMessage `json:"artifacts"`
	ContractDigest   *string           `json:"contract_digest"`
	ContractURL      *string           `json:"contract_url"`
	SourceGitCommit  *string           `json:"source_git_commit"`
}

func (s *Server) registerRelease(c *gin.Context) {
	var body releaseBody
	if err := s.decodeStrictLimited(c, &body, wire.ReleaseRequestFields,
		"a release has contract_id, version, artifact_index_url, artifacts, contract_digest, contract_url and source_git_commit",
		registry.MaxReleaseBodyBytes); err != nil {
		s.shared.Fail(c, err)
		return
	}
	r, created, err := s.svc.RegisterRelease(c, account(c), apiToken(c), registry.ReleaseSpec{
		ContractID: body.ContractID, Version: body.Version, ArtifactIndexURL: body.ArtifactIndexURL,
		Artifacts: body.Artifacts, ContractDigest: body.ContractDigest, ContractURL: body.ContractURL,
		SourceGitCommit: body.SourceGitCommit,
	})
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusOK, wire.ReleaseResult{OK: true, Release: s.presentRelease(r), Created: created})
}

func (s *Server) listReleases(c *gin.Context) {
	limit := 0
	if l, ok := c.GetQuery("limit"); ok {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > registry.MaxListLimit {
			s.shared.Fail(c, registry.Errorf(registry.Invalid, "limit must be a whole number between 1 and %d", registry.MaxListLimit))
			return
		}
		limit = n
	}
	list, next, err := s.svc.ListReleases(c, c.Param("owner"), c.Param("pack"), limit, c.Query("cursor"))
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	out := make([]wire.Release, len(list))
	for i := range list {
		out[i] = s.presentRelease(&list[i])
	}
	var nextCursor *string
	if next != "" {
		nextCursor = &next
	}
	httpx.JSON(c, http.StatusOK, wire.ReleaseList{OK: true, Releases: out, NextCursor: nextCursor})
}

func (s *Server) getRelease(c *gin.Context) {
	r, err := s.svc.Release(c, c.Param("owner"), c.Param("pack"), c.Param("version"))
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusOK, wire.ReleaseDetail{OK: true, Release: s.presentRelease(r)})
}

// releaseURL is the API address of owner/pack's release of version.
func (s *Server) releaseURL(owner, pack, version string) string {
	return s.shared.URLs.Base + "/api/contracts/" + owner + "/" + pack + "/releases/" + url.PathEscape(version)
}

func (s *Server) presentRelease(r *registry.Release) wire.Release {
	out := wire.Release{
		ContractID: r.ContractID(), Version: r.Version, ContractDigest: r.ContractDigest(),
		ArtifactIndexURL: r.ArtifactIndexURL, Artifacts: make([]map[string]any, 0, len(r.Artifacts)),
		ReleaseDigest: "sha256:" + r.SHA256, CreatedAt: wire.Time(r.CreatedAt), LogIndex: r.LogIndex,
		URL:     s.releaseURL(r.Owner, r.Pack, r.Version),
		HTMLURL: s.shared.URLs.Package(r.Owner, r.Pack) + "@" + r.Version,
	}
	if r.ContractURL != "" {
		out.ContractURL = &r.ContractURL
	}
	if r.SourceGitCommit != "" {
		out.SourceGitCommit = &r.SourceGitCommit
	}
	for _, raw := range r.Artifacts {
		// Numbers stay as sent: json.Number marshals its own text.
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var a map[string]any
		if dec.Decode(&a) == nil {
			out.Artifacts = append(out.Artifacts, a)
		}
	}
	return out
}
