-- Download counts (docs/protocol.md, Download counts): raw GETs answered
-- with the document, per version and UTC day (days since 1970-01-01), added
-- up by every replica's flush. No address or user agent is kept. A
-- package's total is kept on its row by the same flush, so the list shows it
-- without adding up.
CREATE TABLE downloads (
    version_id INTEGER NOT NULL REFERENCES versions (id) ON DELETE CASCADE,
    day        INTEGER NOT NULL,
    count      INTEGER NOT NULL,
    PRIMARY KEY (version_id, day)
);
ALTER TABLE packages ADD COLUMN downloads INTEGER NOT NULL DEFAULT 0;
