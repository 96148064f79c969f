-- Full log tiles on the blob store (docs/design.md, Blob store): once the
-- domain has put a full tile's bytes on the blob store under their sha256
-- and read them back, its row keeps only that name and size, and an empty
-- data. Rows whose sha256 is '' still hold their bytes: the partial index
-- finds the few the sequencer has yet to move, without reading the others.
ALTER TABLE log_tiles ADD COLUMN sha256 TEXT NOT NULL DEFAULT '';
ALTER TABLE log_tiles ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
CREATE INDEX log_tiles_in_rows ON log_tiles (level, n) WHERE sha256 = '';
