-- The transparency log's witnesses (docs/protocol.md, Witnesses;
-- docs/design.md, The transparency log). pactd pushes each new checkpoint
-- to the witnesses of its --witness-policy (C2SP tlog-witness) and keeps
-- what they answered:
--
-- log_witnesses: per witness (by its verifier key), the size of the latest
-- checkpoint it is known to have cosigned (the "old" size of the next
-- push), and since when it fails, with why; '' and NULL while it answers.
--
-- log_cosignatures: the cosignature line each witness gave the checkpoint
-- of a size, and the time it carries; rows below the witnessed size are
-- deleted as it moves.
--
-- log_witnessed: the newest checkpoint whose cosignatures meet the
-- policy's quorum, with them appended: what GET /log/checkpoint serves.
-- It only moves forward. None of this is in dumps: after a restore the
-- witnesses cosign the restored log's checkpoint again.
CREATE TABLE log_witnesses (
    witness_key   TEXT PRIMARY KEY,
    size          INTEGER NOT NULL,
    failing_since TIMESTAMP,
    error         TEXT NOT NULL,
    checked_at    TIMESTAMP NOT NULL
);

CREATE TABLE log_cosignatures (
    size        INTEGER NOT NULL,
    witness_key TEXT NOT NULL,
    line        TEXT NOT NULL,
    signed_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (size, witness_key)
);

CREATE TABLE log_witnessed (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    size INTEGER NOT NULL,
    note BLOB NOT NULL
);
