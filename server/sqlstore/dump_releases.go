package sqlstore

import (
	"time"
)

// Releases in a dump (format version 3, added without changing the
// version: a dump without them restores with none, which is what a
// registry had before them). Their log entries travel with the log
// (dump_translog.go).

func init() {
	tables = append(tables,
		table{"releases", "release", "releases", `id, package_id, version_id, artifact_index_url, contract_url, source_git_commit,
artifacts, sha256, log_index, created_at`, `id`, true,
			func() record { return new(releaseRecord) }, func(c *BackupCounts) *int64 { return &c.Releases }},
	)
}

type releaseRecord struct {
	typed
	ID               int64     `json:"id"`
	PackageID        int64     `json:"package_id"`
	VersionID        int64     `json:"version_id"`
	ArtifactIndexURL string    `json:"artifact_index_url"`
	ContractURL      string    `json:"contract_url"`
	SourceGitCommit  string    `json:"source_git_commit"`
	Artifacts        string    `json:"artifacts"` // a JSON array of canonical objects
	SHA256           string    `json:"sha256"`
	LogIndex         *int64    `json:"log_index"`
	CreatedAt        time.Time `json:"created_at"`
}

func (r *releaseRecord) dest() []any {
	return []any{&r.ID, &r.PackageID, &r.VersionID, &r.ArtifactIndexURL, &r.ContractURL, &r.SourceGitCommit,
		&r.Artifacts, &r.SHA256, &r.LogIndex, &r.CreatedAt}
}
func (r *releaseRecord) args() []any {
	return []any{r.ID, r.PackageID, r.VersionID, r.ArtifactIndexURL, r.ContractURL, r.SourceGitCommit,
		r.Artifacts, r.SHA256, nullable(r.LogIndex), r.CreatedAt.UTC()}
}
func (r *releaseRecord) normalize()   { r.CreatedAt = r.CreatedAt.UTC() }
func (r *releaseRecord) getID() int64 { return r.ID }
