-- Full tiles of the transparency log, as they are served (docs/design.md,
-- Full log tiles stored whole): level >= 0 a hash tile of 256 hashes,
-- level -1 an entry bundle of 256 entries. They never change, so a read is
-- one row by key instead of 256. The sequencer writes each one in the
-- transaction that makes it full; the store fills them for the existing
-- log right after this migration, and after a restore. Derived from
-- log_hashes and log_entries, so dumps do not carry them.
--
-- log_tree.tiles_size is the tree size up to which every full tile is
-- stored. A sequencer stores the tiles from there, so the tiles of entries
-- an older pactd sequenced (a replica not yet upgraded) are stored by the
-- next round of a newer one.
CREATE TABLE log_tiles (
    level INTEGER NOT NULL,
    n     BIGINT NOT NULL,
    data  BYTEA NOT NULL,
    PRIMARY KEY (level, n)
);
-- Hashes do not compress: kept out of line without trying.
ALTER TABLE log_tiles ALTER COLUMN data SET STORAGE EXTERNAL;

ALTER TABLE log_tree ADD COLUMN tiles_size BIGINT NOT NULL DEFAULT 0;
