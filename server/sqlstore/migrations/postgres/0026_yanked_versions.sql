-- A package's yanked versions, read by every change of the package (its
-- pack-state entry lists them): without this index the read walked every
-- version of the package, so a publish cost more with each version.
CREATE INDEX versions_yanked ON versions (package_id) WHERE yanked_at IS NOT NULL;
