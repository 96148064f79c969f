-- Webhooks (docs/protocol.md, Webhooks; registry/hook.go). A hook belongs to
-- an owner (a user or an organisation) and, when package is not '', to one
-- of its packs; events lists the events it receives, space-separated. The
-- secret signs every delivery, so it is kept as given (like the log's
-- signer key), and never shown again. failing_since is the first failed
-- attempt since the last success; a hook failing for days is disabled with
-- a note.
CREATE TABLE hooks (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    owner_id      INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    package       TEXT NOT NULL DEFAULT '',
    url           TEXT NOT NULL,
    secret        TEXT NOT NULL,
    events        TEXT NOT NULL,
    created_by    INTEGER NOT NULL,
    created_at    TIMESTAMP NOT NULL,
    failing_since TIMESTAMP,
    disabled_at   TIMESTAMP,
    disabled_note TEXT NOT NULL DEFAULT ''
);
CREATE INDEX hooks_owner_id ON hooks (owner_id, id);

-- The queue of deliveries, one row per event and hook, inserted in the
-- transaction of the event. state is 'pending' until an attempt succeeds
-- ('delivered') or the deliveries stop ('failed': given up after give_up_at,
-- or the hook was disabled). A worker claims a pending row whose
-- next_attempt_at has come by moving next_attempt_at past the attempt's
-- lease, so a worker killed mid-delivery leaves it to be claimed again
-- when the lease ends. The body is built at delivery from log_index (the
-- inclusion proof needs a checkpoint that covers it).
CREATE TABLE hook_deliveries (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    hook_id          INTEGER NOT NULL REFERENCES hooks (id) ON DELETE CASCADE,
    event            TEXT NOT NULL,
    kind             TEXT NOT NULL DEFAULT '',
    owner            TEXT NOT NULL,
    package          TEXT NOT NULL DEFAULT '',
    version          TEXT NOT NULL DEFAULT '',
    log_index        INTEGER,
    message          TEXT NOT NULL DEFAULT '',
    created_at       TIMESTAMP NOT NULL,
    state            TEXT NOT NULL DEFAULT 'pending',
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TIMESTAMP NOT NULL,
    give_up_at       TIMESTAMP NOT NULL,
    last_attempt_at  TIMESTAMP,
    last_status      INTEGER NOT NULL DEFAULT 0,
    last_duration_ms INTEGER NOT NULL DEFAULT 0,
    last_error       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX hook_deliveries_due ON hook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX hook_deliveries_hook_id ON hook_deliveries (hook_id, id);
