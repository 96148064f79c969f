-- Passkey ceremonies of anonymous visitors keep their state with the
-- browser, sealed (registry/passkey.go): the key is a secret every replica
-- reads from here, made by the first that needs it. Only the challenges of
-- passkey log-ins that succeeded are stored, until they expire, so none is
-- finished twice. Neither is dumped: a restored registry makes a new key,
-- and ceremonies under way begin again.
CREATE TABLE server_secrets (
    name       TEXT PRIMARY KEY,
    secret     BYTEA NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE webauthn_spent_challenges (
    hash       BYTEA PRIMARY KEY,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX webauthn_spent_challenges_expires_at ON webauthn_spent_challenges (expires_at);
-- Only log-ins waiting for their second factor are kept in
-- webauthn_ceremonies now, bounded per account.
CREATE INDEX webauthn_ceremonies_account ON webauthn_ceremonies (account_id, created_at);
