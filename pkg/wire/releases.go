package wire

import "time"

// Releases (docs/protocol.md, Releases): the artifacts built from one
// published version.

// ReleaseRequest is the body of POST /api/releases. ContractID is
// "owner/pack", or a pack of the token's account alone.
type ReleaseRequest struct {
	ContractID       string `json:"contract_id"`
	Version          string `json:"version"`
	ArtifactIndexURL string `json:"artifact_index_url"`
	// Artifacts are objects with at least a name or a url; sha256,
	// digest, size and media_type are checked, other fields are kept.
	Artifacts       []map[string]any `json:"artifacts"`
	ContractDigest  *string          `json:"contract_digest,omitempty"` // sha256:<hex> or hex; must be the version's
	ContractURL     *string          `json:"contract_url,omitempty"`
	SourceGitCommit *string          `json:"source_git_commit,omitempty"` // 7 to 64 hex digits
}

// ReleaseRequestFields are the fields of ReleaseRequest; the server
// refuses others.
var ReleaseRequestFields = []string{"contract_id", "version", "artifact_index_url", "artifacts", "contract_digest",
	"contract_url", "source_git_commit"}

// Release is a registered release. It never changes.
type Release struct {
	ContractID       string           `json:"contract_id"` // owner/pack
	Version          string           `json:"version"`
	ContractDigest   string           `json:"contract_digest"` // sha256:<hex> of the version's document
	ContractURL      *string          `json:"contract_url"`    // null when none was given
	ArtifactIndexURL string           `json:"artifact_index_url"`
	Artifacts        []map[string]any `json:"artifacts"`
	SourceGitCommit  *string          `json:"source_git_commit"` // lowercase hex; null when none was given
	// ReleaseDigest is sha256:<hex> of the release record, as its log
	// entry holds it (docs/protocol.md, Releases).
	ReleaseDigest string    `json:"release_digest"`
	CreatedAt     time.Time `json:"created_at"`
	LogIndex      *int64    `json:"log_index"` // null only while the log is being built
	URL           string    `json:"url"`       // this release in the API
	HTMLURL       string    `json:"html_url"`  // the version's page
}

// ReleaseResult answers POST /api/releases. Created is false when the
// identical release existed already (a harmless retry).
type ReleaseResult struct {
	OK      bool    `json:"ok"`
	Release Release `json:"release"`
	Created bool    `json:"created"`
}

// ReleaseDetail answers GET /api/contracts/{owner}/{pack}/releases/{version}.
type ReleaseDetail struct {
	OK      bool    `json:"ok"`
	Release Release `json:"release"`
}

// ReleaseSummary is a release as a list shows it: Release with the
// number of its artifacts instead of the artifacts, which URL answers.
type ReleaseSummary struct {
	ContractID       string    `json:"contract_id"`
	Version          string    `json:"version"`
	ContractDigest   string    `json:"contract_digest"`
	ContractURL      *string   `json:"contract_url"`
	ArtifactIndexURL string    `json:"artifact_index_url"`
	ArtifactCount    int       `json:"artifact_count"`
	SourceGitCommit  *string   `json:"source_git_commit"`
	ReleaseDigest    string    `json:"release_digest"`
	CreatedAt        time.Time `json:"created_at"`
	LogIndex         *int64    `json:"log_index"`
	URL              string    `json:"url"`
	HTMLURL          string    `json:"html_url"`
}

// ReleaseList answers GET /api/contracts/{owner}/{pack}/releases: one
// page, newest first, of at most the limit asked for and at most 1 MB of
// JSON (a page may end early, with a NextCursor; docs/protocol.md, Listing).
type ReleaseList struct {
	OK       bool             `json:"ok"`
	Releases []ReleaseSummary `json:"releases"`
	// NextCursor fetches the following page; null on the last page.
	NextCursor *string `json:"next_cursor"`
}
