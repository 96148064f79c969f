package api

import (
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
	httpx.JSONBytes(c, http.StatusOK, func(b []byte) []byte { return s.appendReleaseList(b, list, next) })
}

// MaxListPageBytes bounds the JSON of one page of a list: a page whose
// items would pass it ends early, with a next_cursor from where it stopped
// (docs/protocol.md, Listing). A page holds one item at least.
const MaxListPageBytes = 1_000_000

// listEnvelopeBytes is room for what a page holds besides its items: the
// braces, "ok", the list's name and next_cursor.
const listEnvelopeBytes = 256

// appendReleaseList appends what encoding/json makes of wire.ReleaseList
// {OK: true, Releases: presentReleaseSummary(each), NextCursor: next},
// cut after the releases that fit in MaxListPageBytes. A release's fields
// are bounded (URLs of 2 KB, which JSON may escape to 12 KB), so 100 of
// them could pass it.
func (s *Server) appendReleaseList(b []byte, list []registry.Release, next string) []byte {
	b = append(b, `{"ok":true,"releases":[`...)
	start := len(b)
	for i := range list {
		item, err := json.Marshal(s.presentReleaseSummary(&list[i]))
		if err != nil {
			continue // a wire.ReleaseSummary always encodes
		}
		if i > 0 && len(b)-start+1+len(item) > MaxListPageBytes-listEnvelopeBytes {
			next = registry.ReleaseCursor(&list[i-1])
			break
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, item...)
	}
	b = append(b, `],"next_cursor":`...)
	if next == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, next)
	}
	return append(b, '}')
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
