-- Times are TIMESTAMP so go-sqlite3 returns time.Time; the store always
-- writes them in UTC, where their text form sorts in time order.

CREATE TABLE accounts (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    email         TEXT NOT NULL,
    username      TEXT NOT NULL,
    password_hash TEXT NOT NULL DEFAULT '',
    created_at    TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX accounts_username_key ON accounts (lower(username));
CREATE UNIQUE INDEX accounts_email_key ON accounts (lower(email));

CREATE TABLE tokens (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id   INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name         TEXT NOT NULL DEFAULT '',
    hash         BLOB NOT NULL UNIQUE,
    created_at   TIMESTAMP NOT NULL,
    last_used_at TIMESTAMP,
    expires_at   TIMESTAMP,
    revoked_at   TIMESTAMP
);
CREATE INDEX tokens_account_id ON tokens (account_id, created_at DESC);

CREATE TABLE ssh_keys (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id   INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name         TEXT NOT NULL DEFAULT '',
    type         TEXT NOT NULL,
    fingerprint  TEXT NOT NULL UNIQUE,
    public_key   TEXT NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    last_used_at TIMESTAMP
);
CREATE INDEX ssh_keys_account_id ON ssh_keys (account_id, created_at);

CREATE TABLE packages (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    owner_id          INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    pack_slug         TEXT NOT NULL,
    name              TEXT NOT NULL,
    description       TEXT NOT NULL DEFAULT '',
    scheme            TEXT NOT NULL DEFAULT '',
    version           TEXT NOT NULL,
    sha256            TEXT NOT NULL,
    latest_version_id INTEGER NOT NULL DEFAULT 0,
    created_at        TIMESTAMP NOT NULL,
    updated_at        TIMESTAMP NOT NULL,
    UNIQUE (owner_id, pack_slug)
);
CREATE INDEX packages_latest ON packages (latest_version_id DESC);
CREATE INDEX packages_owner_latest ON packages (owner_id, latest_version_id DESC);
CREATE INDEX packages_scheme_latest ON packages (scheme, latest_version_id DESC);

CREATE TABLE versions (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    package_id       INTEGER NOT NULL REFERENCES packages (id) ON DELETE CASCADE,
    version          TEXT NOT NULL,
    name             TEXT NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    scheme           TEXT NOT NULL DEFAULT '',
    sha256           TEXT NOT NULL,
    size             INTEGER NOT NULL,
    content          BLOB NOT NULL,
    created_at       TIMESTAMP NOT NULL,
    -- provenance of a signed publish; all NULL for token publishes
    key_id           INTEGER REFERENCES ssh_keys (id) ON DELETE SET NULL,
    key_fingerprint  TEXT,
    signed_timestamp INTEGER,
    nonce            TEXT,
    signature        TEXT,
    UNIQUE (package_id, version)
);

CREATE TABLE nonces (
    key_id   INTEGER NOT NULL REFERENCES ssh_keys (id) ON DELETE CASCADE,
    nonce    TEXT NOT NULL,
    spent_at TIMESTAMP NOT NULL,
    PRIMARY KEY (key_id, nonce)
);
CREATE INDEX nonces_spent_at ON nonces (spent_at);

CREATE TABLE sessions (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    hash       BLOB NOT NULL UNIQUE,
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL
);
CREATE INDEX sessions_expires_at ON sessions (expires_at);
