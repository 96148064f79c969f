-- Releases (docs/protocol.md, Releases): the artifacts built from one
-- published version, at most one release per version, never changed once
-- stored. artifacts is a JSON array of objects in canonical form (keys
-- sorted); contract_url and source_git_commit are '' when not given;
-- sha256 is the digest of the release record, which the release's log
-- entry (log_index) holds.
CREATE TABLE releases (
    id                 INTEGER PRIMARY KEY,
    package_id         INTEGER NOT NULL REFERENCES packages (id) ON DELETE CASCADE,
    version_id         INTEGER NOT NULL UNIQUE REFERENCES versions (id) ON DELETE CASCADE,
    artifact_index_url TEXT NOT NULL,
    contract_url       TEXT NOT NULL,
    source_git_commit  TEXT NOT NULL,
    artifacts          TEXT NOT NULL,
    sha256             TEXT NOT NULL,
    log_index          BIGINT,
    created_at         TIMESTAMP NOT NULL
);
CREATE INDEX releases_package_id ON releases (package_id, id);
