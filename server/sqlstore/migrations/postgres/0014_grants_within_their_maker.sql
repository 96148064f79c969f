-- A grant never exceeds its maker (docs/protocol.md, Trusted publishing).
-- A trusted publisher records who made it, created_by (the account) and
-- created_by_token (the API token it used; NULL from the dashboard), and
-- expires_at, the expiry of that token (NULL: until removed). Removing or
-- demoting an organisation's owner removes the trusted publishers it made
-- for the organisation. Those made before this was kept have no maker,
-- but for a user's own, which only the user could make.
ALTER TABLE trusted_publishers ADD COLUMN expires_at TIMESTAMPTZ;
ALTER TABLE trusted_publishers ADD COLUMN created_by BIGINT REFERENCES accounts (id) ON DELETE SET NULL;
ALTER TABLE trusted_publishers ADD COLUMN created_by_token BIGINT REFERENCES tokens (id) ON DELETE SET NULL;
UPDATE trusted_publishers SET created_by = account_id
WHERE account_id IN (SELECT id FROM accounts WHERE kind = 'user');

-- The ids of the trusted publishers a token was exchanged through, words
-- separated by single spaces, so that removing one revokes the token;
-- NULL for every other token.
ALTER TABLE tokens ADD COLUMN trusted_publishers TEXT;
