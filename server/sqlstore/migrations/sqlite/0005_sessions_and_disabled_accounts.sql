-- An account disabled by the operator (pactd user disable) cannot log in,
-- and its tokens and SSH-signed publishes are refused; NULL: enabled.
ALTER TABLE accounts ADD COLUMN disabled_at TIMESTAMP;

-- What the dashboard shows of a session: when it was last seen (written
-- at most once a minute), the browser's user agent (cut to 200 bytes) and
-- the client address it logged in from. Sessions from before know none
-- of it; they count as last seen when they began.
ALTER TABLE sessions ADD COLUMN last_seen_at TIMESTAMP;
ALTER TABLE sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN ip TEXT NOT NULL DEFAULT '';
UPDATE sessions SET last_seen_at = created_at;
CREATE INDEX sessions_account_id ON sessions (account_id, last_seen_at);
