-- Logins of the command line approved in the browser (registry/device.go,
-- docs/protocol.md "Logging in through the browser"): a row lives from
-- pact login's request until the token is collected (the exchange deletes
-- it) or, at most, ten minutes; pactd prunes the expired ones. Only the
-- SHA-256 of each code is kept, as for tokens. Not dumped (dump.go): no
-- login lasts longer than ten minutes.
CREATE TABLE device_logins (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    device_hash      BLOB NOT NULL UNIQUE,
    user_hash        BLOB NOT NULL UNIQUE,
    name             TEXT NOT NULL,
    user_agent       TEXT NOT NULL DEFAULT '',
    ip               TEXT NOT NULL DEFAULT '',
    created_at       TIMESTAMP NOT NULL,
    expires_at       TIMESTAMP NOT NULL,
    polled_at        TIMESTAMP,
    -- The decision: NULL while the login waits, else 'approved' or
    -- 'denied', by account_id at decided_at.
    decision         TEXT,
    account_id       INTEGER REFERENCES accounts (id) ON DELETE CASCADE,
    decided_at       TIMESTAMP,
    -- What an approval grants, made into a token when it is collected;
    -- scopes and packages as in tokens (0004_token_scopes.sql).
    token_name       TEXT,
    scopes           TEXT,
    packages         TEXT,
    token_expires_at TIMESTAMP
);
CREATE INDEX device_logins_expires_at ON device_logins (expires_at);
