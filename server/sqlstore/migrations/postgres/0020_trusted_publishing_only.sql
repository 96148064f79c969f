-- A package whose owner set trusted publishing only takes publishes only
-- from tokens exchanged through a trusted publisher (docs/protocol.md,
-- Trusted publishing only). Every change of it is a log entry
-- (trusted-publishing-only); no package has it before this migration, so
-- there is nothing to log here.
ALTER TABLE packages ADD COLUMN trusted_publishing_only BOOLEAN NOT NULL DEFAULT FALSE;
