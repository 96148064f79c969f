-- Bounds of tokens (docs/protocol.md, Token scopes): GET /api/tokens and the
-- dashboard list an account's tokens a page at a time by id, and pactd
-- deletes the tokens that expired or were revoked longer than
-- --token-retention ago, except those a version was published with
-- (versions.token_id, whose index also serves the foreign key's check when
-- a token is deleted).
CREATE INDEX tokens_account_id_id ON tokens (account_id, id);
CREATE INDEX tokens_expires_at ON tokens (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX tokens_revoked_at ON tokens (revoked_at) WHERE revoked_at IS NOT NULL;
CREATE INDEX versions_token_id ON versions (token_id) WHERE token_id IS NOT NULL;
