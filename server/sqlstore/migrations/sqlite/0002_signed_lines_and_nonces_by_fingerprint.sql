-- Signed versions keep the name and description lines exactly as signed
-- and the signer's public key, so they can be verified again from the
-- version alone, also after the key is deleted or registered again.
-- Versions signed before keep NULL signed lines: what was signed is not
-- known.
ALTER TABLE versions ADD COLUMN signed_name TEXT;
ALTER TABLE versions ADD COLUMN signed_description TEXT;
ALTER TABLE versions ADD COLUMN public_key TEXT;

-- A fingerprint is the SHA-256 of exactly one public key, so the key of an
-- older version is known for certain while that fingerprint is registered.
UPDATE versions
SET public_key = (SELECT k.public_key FROM ssh_keys k WHERE k.fingerprint = versions.key_fingerprint)
WHERE key_fingerprint IS NOT NULL;

-- Spent nonces are remembered by the key's fingerprint, with no reference
-- to the key's row: a key deleted and registered again, in any account,
-- must still refuse the nonces it spent until they are pruned.
CREATE TABLE nonces_by_fingerprint (
    fingerprint TEXT NOT NULL,
    nonce       TEXT NOT NULL,
    spent_at    TIMESTAMP NOT NULL,
    PRIMARY KEY (fingerprint, nonce)
);
INSERT INTO nonces_by_fingerprint (fingerprint, nonce, spent_at)
SELECT k.fingerprint, n.nonce, n.spent_at FROM nonces n JOIN ssh_keys k ON k.id = n.key_id;
DROP TABLE nonces;
ALTER TABLE nonces_by_fingerprint RENAME TO nonces;
CREATE INDEX nonces_spent_at ON nonces (spent_at);
