-- Organisations (docs/design.md, Organisations): an organisation is an
-- accounts row of kind 'org', so it shares the one namespace of usernames
-- (accounts_username_key) and owns packages like a user. It has no email,
-- no password, no tokens, keys or sessions of its own; the emails that
-- must be unique are users' only.
ALTER TABLE accounts ADD COLUMN kind TEXT NOT NULL DEFAULT 'user';
ALTER TABLE accounts ADD COLUMN display_name TEXT NOT NULL DEFAULT '';
DROP INDEX accounts_email_key;
CREATE UNIQUE INDEX accounts_email_key ON accounts (lower(email)) WHERE kind = 'user';

-- Who may act for an organisation, and how: role is 'owner' or
-- 'maintainer'. Read on every check, never cached, so a removal holds at
-- once on every replica.
CREATE TABLE org_members (
    org_id     INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    role       TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (org_id, account_id)
);
CREATE INDEX org_members_account_id ON org_members (account_id);

-- Who published each version (the account, for an organisation's package
-- one of its members) and with which token; the key of a signed publish
-- is key_id / key_fingerprint, the CI job of a trusted publish is ci.
-- NULL for versions published before this was kept.
ALTER TABLE versions ADD COLUMN publisher_id INTEGER REFERENCES accounts (id) ON DELETE SET NULL;
ALTER TABLE versions ADD COLUMN token_id INTEGER REFERENCES tokens (id) ON DELETE SET NULL;
