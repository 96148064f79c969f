-- Passkeys for the dashboard (registry/passkey.go, docs/protocol.md
-- "Passkeys"). require_second_factor: for a user, a log-in with the
-- password also needs a passkey (or a recovery code); for an organisation,
-- its members need that setting on to manage it in the dashboard.
ALTER TABLE accounts ADD COLUMN require_second_factor BOOLEAN NOT NULL DEFAULT FALSE;

-- A user's WebAuthn credentials. record is the credential record as
-- go-webauthn keeps it (JSON: flags, AAGUID, attestation); credential_id,
-- public_key and sign_count are its parts that are looked up or change
-- (sign_count wins over the record's counter).
CREATE TABLE passkeys (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id    INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    credential_id BLOB NOT NULL UNIQUE,
    public_key    BLOB NOT NULL,
    sign_count    BIGINT NOT NULL DEFAULT 0,
    transports    TEXT NOT NULL DEFAULT '',
    name          TEXT NOT NULL,
    record        TEXT NOT NULL,
    created_at    TIMESTAMP NOT NULL,
    last_used_at  TIMESTAMP
);
CREATE INDEX passkeys_account_id ON passkeys (account_id);

-- One-time recovery codes, by their SHA-256; using one deletes it.
CREATE TABLE recovery_codes (
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    hash       BLOB NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (account_id, hash)
);

-- The state of a WebAuthn ceremony between its begin and its finish, and
-- of a log-in between its password and its second factor, by the SHA-256
-- of the random id the browser's cookie holds. A row lives five minutes at
-- most and is taken (deleted) by the step that finishes it. Not dumped.
CREATE TABLE webauthn_ceremonies (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    hash       BLOB NOT NULL UNIQUE,
    kind       TEXT NOT NULL,
    account_id INTEGER REFERENCES accounts (id) ON DELETE CASCADE,
    session    TEXT NOT NULL DEFAULT '',
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL
);
CREATE INDEX webauthn_ceremonies_expires_at ON webauthn_ceremonies (expires_at);
