-- A package whose owner set trusted publishing only takes publishes only
-- from tokens exchanged through a trusted publisher (docs/protocol.md,
-- Trusted publishing only). Every change of it is a log entry
-- (trusted-publishing-only); no package has it before this migration, so
-- there is nothing to log here. BOOLEAN: go-sqlite3 reads the column by its
-- declared type as a bool.
ALTER TABLE packages ADD COLUMN trusted_publishing_only BOOLEAN NOT NULL DEFAULT FALSE;
