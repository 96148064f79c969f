-- The search index (docs/protocol.md, "Search"): the distinct trigrams of
-- each package's searched text, keyed by the package's latest version id
-- so that a search walks one trigram's packages newest first and stops at
-- the page size. Derived data: triggers keep it in step with packages in
-- the same transaction (publish, restore, any later change of the latest
-- version), and dumps leave it out.
--
-- The searched text is "owner/slug", the name and the description, folded
-- by pact_fold and joined by line breaks, which no search word contains.
-- Trigrams are counted in characters, as substr counts them.
CREATE TABLE package_grams (
    gram              TEXT NOT NULL,
    latest_version_id INTEGER NOT NULL,
    package_id        INTEGER NOT NULL,
    PRIMARY KEY (gram, latest_version_id, package_id)
) WITHOUT ROWID;

-- Positions 1..4096 to cut text into trigrams (triggers cannot recurse):
-- longer than any searched text the publish limits allow (39 + 1 + 64 +
-- 1 + 200 + 1 + 2,000 characters).
CREATE TABLE search_positions (n INTEGER PRIMARY KEY);
INSERT INTO search_positions (n)
WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 4096)
SELECT n FROM c;

-- deferred is 1 only inside a bulk load (Store.Seed, Store.Restore), which
-- turns the triggers off for its transaction and indexes what it loaded in
-- one sorted pass before it commits.
CREATE TABLE search_index_state (deferred INTEGER NOT NULL);
INSERT INTO search_index_state (deferred) VALUES (0);

-- A package gets its trigrams once it has a latest version (the publish
-- inserts it with latest_version_id 0 and sets it in the same transaction).
CREATE TRIGGER package_grams_insert AFTER INSERT ON packages
WHEN NEW.latest_version_id <> 0 AND (SELECT deferred FROM search_index_state) = 0
BEGIN
    INSERT OR IGNORE INTO package_grams (gram, latest_version_id, package_id)
    SELECT substr(t.s, n, 3), NEW.latest_version_id, NEW.id
    FROM (SELECT pact_fold((SELECT username FROM accounts WHERE id = NEW.owner_id) || '/' || NEW.pack_slug
                           || char(10) || NEW.name || char(10) || NEW.description) AS s) t
    JOIN search_positions ON n <= length(t.s) - 2;
END;

CREATE TRIGGER package_grams_update AFTER UPDATE OF name, description, latest_version_id, pack_slug, owner_id ON packages
WHEN (OLD.latest_version_id IS NOT NEW.latest_version_id OR OLD.name IS NOT NEW.name
  OR OLD.description IS NOT NEW.description OR OLD.pack_slug IS NOT NEW.pack_slug OR OLD.owner_id IS NOT NEW.owner_id)
  AND (SELECT deferred FROM search_index_state) = 0
BEGIN
    DELETE FROM package_grams WHERE OLD.latest_version_id <> 0 AND package_id = OLD.id AND latest_version_id = OLD.latest_version_id
    AND gram IN (
        SELECT substr(t.s, n, 3)
        FROM (SELECT pact_fold((SELECT username FROM accounts WHERE id = OLD.owner_id) || '/' || OLD.pack_slug
                               || char(10) || OLD.name || char(10) || OLD.description) AS s) t
        JOIN search_positions ON n <= length(t.s) - 2);
    INSERT OR IGNORE INTO package_grams (gram, latest_version_id, package_id)
    SELECT substr(t.s, n, 3), NEW.latest_version_id, NEW.id
    FROM (SELECT pact_fold((SELECT username FROM accounts WHERE id = NEW.owner_id) || '/' || NEW.pack_slug
                           || char(10) || NEW.name || char(10) || NEW.description) AS s) t
    JOIN search_positions ON n <= length(t.s) - 2
    WHERE NEW.latest_version_id <> 0;
END;

CREATE TRIGGER package_grams_delete AFTER DELETE ON packages
WHEN OLD.latest_version_id <> 0
BEGIN
    DELETE FROM package_grams WHERE package_id = OLD.id AND latest_version_id = OLD.latest_version_id
    AND gram IN (
        SELECT substr(t.s, n, 3)
        FROM (SELECT pact_fold((SELECT username FROM accounts WHERE id = OLD.owner_id) || '/' || OLD.pack_slug
                               || char(10) || OLD.name || char(10) || OLD.description) AS s) t
        JOIN search_positions ON n <= length(t.s) - 2);
END;

-- What is there already (Store.indexPackages does the same).
INSERT OR IGNORE INTO package_grams (gram, latest_version_id, package_id)
SELECT substr(t.s, n, 3), t.latest_version_id, t.id
FROM (SELECT p.id, p.latest_version_id,
             pact_fold(a.username || '/' || p.pack_slug || char(10) || p.name || char(10) || p.description) AS s
      FROM packages p JOIN accounts a ON a.id = p.owner_id WHERE p.latest_version_id <> 0) t
JOIN search_positions ON n <= length(t.s) - 2
ORDER BY 1, 2, 3;

-- Exact and prefix matches of slugs (search ranks 0 and 1), in slug order.
CREATE INDEX packages_slug_latest ON packages (pack_slug, latest_version_id DESC);
