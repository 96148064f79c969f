-- The search index keyed by package, not by latest version
-- (docs/design.md, "Search"): a publish of a new version whose owner/slug,
-- name and description are unchanged touches no trigram row, and one that
-- changes them writes the difference only. A search's "other" matches come
-- in package id order (newest package first), which no publish changes.
--
-- The table is rebuilt from what is there, in one sorted pass.
DROP TRIGGER package_grams_insert;
DROP TRIGGER package_grams_update;
DROP TRIGGER package_grams_delete;
DROP TABLE package_grams;

CREATE TABLE package_grams (
    gram       TEXT NOT NULL,
    package_id INTEGER NOT NULL,
    PRIMARY KEY (gram, package_id)
) WITHOUT ROWID;

-- Every package has its trigrams, with a latest version or not (a search
-- reads only packages that have one); the publish inserts the package row
-- with its text, so the trigrams are written once, with the package.
CREATE TRIGGER package_grams_insert AFTER INSERT ON packages
WHEN (SELECT deferred FROM search_index_state) = 0
BEGIN
    INSERT OR IGNORE INTO package_grams (gram, package_id)
    SELECT substr(t.s, n, 3), NEW.id
    FROM (SELECT pact_fold(coalesce((SELECT username FROM accounts WHERE id = NEW.owner_id), '') || '/' || NEW.pack_slug
                           || char(10) || NEW.name || char(10) || NEW.description) AS s) t
    JOIN search_positions ON n <= length(t.s) - 2;
END;

-- Only a change of the searched text; then the trigrams it lost go and
-- the ones it gained come (INSERT OR IGNORE leaves the kept ones alone).
CREATE TRIGGER package_grams_update AFTER UPDATE OF name, description, pack_slug, owner_id ON packages
WHEN (OLD.name IS NOT NEW.name OR OLD.description IS NOT NEW.description OR OLD.pack_slug IS NOT NEW.pack_slug
      OR OLD.owner_id IS NOT NEW.owner_id)
  AND (SELECT deferred FROM search_index_state) = 0
BEGIN
    DELETE FROM package_grams WHERE package_id = OLD.id
    AND gram IN (
        SELECT substr(t.s, n, 3)
        FROM (SELECT pact_fold(coalesce((SELECT username FROM accounts WHERE id = OLD.owner_id), '') || '/' || OLD.pack_slug
                               || char(10) || OLD.name || char(10) || OLD.description) AS s) t
        JOIN search_positions ON n <= length(t.s) - 2)
    AND gram NOT IN (
        SELECT substr(t.s, n, 3)
        FROM (SELECT pact_fold(coalesce((SELECT username FROM accounts WHERE id = NEW.owner_id), '') || '/' || NEW.pack_slug
                               || char(10) || NEW.name || char(10) || NEW.description) AS s) t
        JOIN search_positions ON n <= length(t.s) - 2);
    INSERT OR IGNORE INTO package_grams (gram, package_id)
    SELECT substr(t.s, n, 3), NEW.id
    FROM (SELECT pact_fold(coalesce((SELECT username FROM accounts WHERE id = NEW.owner_id), '') || '/' || NEW.pack_slug
                           || char(10) || NEW.name || char(10) || NEW.description) AS s) t
    JOIN search_positions ON n <= length(t.s) - 2;
END;

CREATE TRIGGER package_grams_delete AFTER DELETE ON packages
BEGIN
    DELETE FROM package_grams WHERE package_id = OLD.id
    AND gram IN (
        SELECT substr(t.s, n, 3)
        FROM (SELECT pact_fold(coalesce((SELECT username FROM accounts WHERE id = OLD.owner_id), '') || '/' || OLD.pack_slug
                               || char(10) || OLD.name || char(10) || OLD.description) AS s) t
        JOIN search_positions ON n <= length(t.s) - 2);
END;

-- What is there already (Store.indexPackages does the same).
INSERT OR IGNORE INTO package_grams (gram, package_id)
SELECT substr(t.s, n, 3), t.id
FROM (SELECT p.id,
             pact_fold(a.username || '/' || p.pack_slug || char(10) || p.name || char(10) || p.description) AS s
      FROM packages p JOIN accounts a ON a.id = p.owner_id) t
JOIN search_positions ON n <= length(t.s) - 2
ORDER BY 1, 2;

-- The packages of an owner, newest package first (a search whose words
-- are all shorter than a trigram finds the owner of that name).
CREATE INDEX packages_owner_id ON packages (owner_id, id);
