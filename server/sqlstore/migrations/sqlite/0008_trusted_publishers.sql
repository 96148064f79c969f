-- Trusted publishers (docs/protocol.md, Trusted publishing): an account
-- trusts CI jobs whose OpenID Connect ID tokens come from issuer and carry
-- every claim of claims (a JSON object of strings, compared exactly) to
-- publish the packs its packages globs name (words separated by single
-- spaces, as tokens.packages).
CREATE TABLE trusted_publishers (
    id         INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    issuer     TEXT NOT NULL,
    packages   TEXT NOT NULL,
    claims     TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX trusted_publishers_account_id ON trusted_publishers (account_id, id);
CREATE INDEX trusted_publishers_issuer ON trusted_publishers (issuer);

-- The jti of every ID token exchanged, kept until the token expires, so
-- that no ID token is exchanged twice.
CREATE TABLE oidc_jtis (
    issuer     TEXT NOT NULL,
    jti        TEXT NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    PRIMARY KEY (issuer, jti)
);
CREATE INDEX oidc_jtis_expires_at ON oidc_jtis (expires_at);

-- The CI identity (a JSON object: issuer, repository, workflow, ref, sha,
-- run_id) of a token exchanged for an ID token, and of every version
-- published with such a token; NULL for everything else.
ALTER TABLE tokens ADD COLUMN ci TEXT;
ALTER TABLE versions ADD COLUMN ci TEXT;
