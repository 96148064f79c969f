-- Search on SQLite's own full-text engine, FTS5 (docs/design.md, "Search").
-- The hand-built trigram index of migrations 0006 and 0009 goes; three FTS5
-- tables take its place, each keyed by package id (the rowid), so that a
-- publish of a new version whose searched text is unchanged touches none:
--
--   package_names: the owner, and the slug with the name (what the name
--     rank matches);
--   package_texts: the same and the description (every match);
--   package_slugs: the slugs in trigrams, each between two spaces so that
--     its start and end are trigrams too (the suggestions for typos).
--
-- The text is folded by pact_fold (the slugs' fold: lower case, letters
-- without their diacritics; server/sqlstore/dialect.go), the query by the
-- same function in Go, so both sides fold alike. Contentless: the text lives
-- in packages, the tables hold only the index.
DROP TRIGGER package_grams_insert;
DROP TRIGGER package_grams_update;
DROP TRIGGER package_grams_delete;
DROP TABLE package_grams;
DROP TABLE search_positions;

CREATE VIRTUAL TABLE package_names USING fts5(owner, name, content='', contentless_delete=1,
    tokenize='unicode61 remove_diacritics 0', prefix='1 2 3');
CREATE VIRTUAL TABLE package_texts USING fts5(owner, name, description, content='', contentless_delete=1,
    tokenize='unicode61 remove_diacritics 0', prefix='1 2 3');
CREATE VIRTUAL TABLE package_slugs USING fts5(slug, content='', contentless_delete=1, tokenize='trigram');

-- search_index_state.deferred is set by a bulk load (Store.Seed,
-- Store.Restore), which indexes what it loaded in one pass before it commits.
CREATE TRIGGER package_search_insert AFTER INSERT ON packages
WHEN (SELECT deferred FROM search_index_state) = 0
BEGIN
    INSERT INTO package_names (rowid, owner, name)
    VALUES (NEW.id, pact_fold(coalesce((SELECT username FROM accounts WHERE id = NEW.owner_id), '')),
            pact_fold(NEW.pack_slug || ' ' || NEW.name));
    INSERT INTO package_texts (rowid, owner, name, description)
    VALUES (NEW.id, pact_fold(coalesce((SELECT username FROM accounts WHERE id = NEW.owner_id), '')),
            pact_fold(NEW.pack_slug || ' ' || NEW.name), pact_fold(NEW.description));
    INSERT INTO package_slugs (rowid, slug) VALUES (NEW.id, ' ' || NEW.pack_slug || ' ');
END;

-- Only a change of the searched text (a new latest version usually keeps it).
CREATE TRIGGER package_search_update AFTER UPDATE OF name, description, pack_slug, owner_id ON packages
WHEN (OLD.name IS NOT NEW.name OR OLD.description IS NOT NEW.description OR OLD.pack_slug IS NOT NEW.pack_slug
      OR OLD.owner_id IS NOT NEW.owner_id)
  AND (SELECT deferred FROM search_index_state) = 0
BEGIN
    DELETE FROM package_names WHERE rowid = OLD.id;
    DELETE FROM package_texts WHERE rowid = OLD.id;
    DELETE FROM package_slugs WHERE rowid = OLD.id;
    INSERT INTO package_names (rowid, owner, name)
    VALUES (NEW.id, pact_fold(coalesce((SELECT username FROM accounts WHERE id = NEW.owner_id), '')),
            pact_fold(NEW.pack_slug || ' ' || NEW.name));
    INSERT INTO package_texts (rowid, owner, name, description)
    VALUES (NEW.id, pact_fold(coalesce((SELECT username FROM accounts WHERE id = NEW.owner_id), '')),
            pact_fold(NEW.pack_slug || ' ' || NEW.name), pact_fold(NEW.description));
    INSERT INTO package_slugs (rowid, slug) VALUES (NEW.id, ' ' || NEW.pack_slug || ' ');
END;

CREATE TRIGGER package_search_delete AFTER DELETE ON packages
BEGIN
    DELETE FROM package_names WHERE rowid = OLD.id;
    DELETE FROM package_texts WHERE rowid = OLD.id;
    DELETE FROM package_slugs WHERE rowid = OLD.id;
END;

-- What is there already (Store.indexPackages does the same).
INSERT INTO package_names (rowid, owner, name)
SELECT p.id, pact_fold(a.username), pact_fold(p.pack_slug || ' ' || p.name)
FROM packages p JOIN accounts a ON a.id = p.owner_id ORDER BY p.id;
INSERT INTO package_texts (rowid, owner, name, description)
SELECT p.id, pact_fold(a.username), pact_fold(p.pack_slug || ' ' || p.name), pact_fold(p.description)
FROM packages p JOIN accounts a ON a.id = p.owner_id ORDER BY p.id;
INSERT INTO package_slugs (rowid, slug) SELECT id, ' ' || pack_slug || ' ' FROM packages ORDER BY id;
