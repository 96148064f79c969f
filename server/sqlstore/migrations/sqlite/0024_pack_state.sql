-- Every event of a package (publish, yank, unyank, deprecation) is
-- followed in the log by a pack-state entry stating the package's latest
-- version, yanked versions and deprecation after it, chained to the
-- package's previous pack-state entry (docs/protocol.md, Package state).
-- log_head is the index of the package's newest one, which clients check
-- the latest version against; NULL until it has one. The store appends a
-- first one for every package that exists, right after this migration
-- (backfillPackStates).
ALTER TABLE packages ADD COLUMN log_head BIGINT;
