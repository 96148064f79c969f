-- The transparency log (docs/protocol.md, Transparency log). Entries get
-- their index in the transaction of the change they record, under the one
-- log_head row; the sequencer later hashes them into the tree
-- (log_hashes, tlog's stored hash indexes), signs a checkpoint and moves
-- log_tree.tree_size. The existing versions and keys are appended, in id
-- order, by the store right after this migration in the same transaction.

CREATE TABLE log_entries (
    idx        BIGINT PRIMARY KEY,
    entry      BYTEA NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE log_hashes (
    id   BIGINT PRIMARY KEY,
    hash BYTEA NOT NULL
);

CREATE TABLE log_checkpoints (
    size       BIGINT PRIMARY KEY,
    note       BYTEA NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE log_head (
    id         SMALLINT PRIMARY KEY CHECK (id = 1),
    next_index BIGINT NOT NULL
);
INSERT INTO log_head (id, next_index) VALUES (1, 0);

-- signer_key is '' when the operator keeps the key outside the database
-- (pactd serve --log-key-file); verifier_key is '' until the first start.
CREATE TABLE log_tree (
    id           SMALLINT PRIMARY KEY CHECK (id = 1),
    tree_size    BIGINT NOT NULL,
    signer_key   TEXT NOT NULL,
    verifier_key TEXT NOT NULL
);
INSERT INTO log_tree (id, tree_size, signer_key, verifier_key) VALUES (1, 0, '', '');

ALTER TABLE versions ADD COLUMN log_index BIGINT;
