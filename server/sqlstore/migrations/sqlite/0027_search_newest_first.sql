-- The search index of migration 0017 again, keyed by the package id negated
-- (docs/design.md, "Search"). A search reads the newest matches first, and
-- FTS5 walks a doclist natively in ascending rowid: walked backwards
-- (ORDER BY rowid DESC), a word in most packages cost FTS5 a pass to the
-- far end of its postings before the first row, 1-6 ms at a million
-- packages; with the newest package at the smallest rowid, ORDER BY rowid
-- reads them in FTS5's own order (0.1-0.3 ms). The tables, their tokenizers
-- and the fold are unchanged; the triggers write -id.
DROP TRIGGER package_search_insert;
DROP TRIGGER package_search_update;
DROP TRIGGER package_search_delete;
DROP TABLE package_names;
DROP TABLE package_texts;
DROP TABLE package_slugs;

CREATE VIRTUAL TABLE package_names USING fts5(owner, name, content='', contentless_delete=1,
    tokenize='unicode61 remove_diacritics 0', prefix='1 2 3');
CREATE VIRTUAL TABLE package_texts USING fts5(owner, name, description, content='', contentless_delete=1,
    tokenize='unicode61 remove_diacritics 0', prefix='1 2 3');
CREATE VIRTUAL TABLE package_slugs USING fts5(slug, content='', contentless_delete=1, tokenize='trigram');

CREATE TRIGGER package_search_insert AFTER INSERT ON packages
WHEN (SELECT deferred FROM search_index_state) = 0
BEGIN
    INSERT INTO package_names (rowid, owner, name)
    VALUES (-NEW.id, pact_fold(coalesce((SELECT username FROM accounts WHERE id = NEW.owner_id), '')),
            pact_fold(NEW.pack_slug || ' ' || NEW.name));
    INSERT INTO package_texts (rowid, owner, name, description)
    VALUES (-NEW.id, pact_fold(coalesce((SELECT username FROM accounts WHERE id = NEW.owner_id), '')),
            pact_fold(NEW.pack_slug || ' ' || NEW.name), pact_fold(NEW.description));
    INSERT INTO package_slugs (rowid, slug) VALUES (-NEW.id, ' ' || NEW.pack_slug || ' ');
END;

-- Only a change of the searched text (a new latest version usually keeps it).
CREATE TRIGGER package_search_update AFTER UPDATE OF name, description, pack_slug, owner_id ON packages
WHEN (OLD.name IS NOT NEW.name OR OLD.description IS NOT NEW.description OR OLD.pack_slug IS NOT NEW.pack_slug
      OR OLD.owner_id IS NOT NEW.owner_id)
  AND (SELECT deferred FROM search_index_state) = 0
BEGIN
    DELETE FROM package_names WHERE rowid = -OLD.id;
    DELETE FROM package_texts WHERE rowid = -OLD.id;
    DELETE FROM package_slugs WHERE rowid = -OLD.id;
    INSERT INTO package_names (rowid, owner, name)
    VALUES (-NEW.id, pact_fold(coalesce((SELECT username FROM accounts WHERE id = NEW.owner_id), '')),
            pact_fold(NEW.pack_slug || ' ' || NEW.name));
    INSERT INTO package_texts (rowid, owner, name, description)
    VALUES (-NEW.id, pact_fold(coalesce((SELECT username FROM accounts WHERE id = NEW.owner_id), '')),
            pact_fold(NEW.pack_slug || ' ' || NEW.name), pact_fold(NEW.description));
    INSERT INTO package_slugs (rowid, slug) VALUES (-NEW.id, ' ' || NEW.pack_slug || ' ');
END;

CREATE TRIGGER package_search_delete AFTER DELETE ON packages
BEGIN
    DELETE FROM package_names WHERE rowid = -OLD.id;
    DELETE FROM package_texts WHERE rowid = -OLD.id;
    DELETE FROM package_slugs WHERE rowid = -OLD.id;
END;

-- What is there already (Store.indexPackages does the same), oldest last.
INSERT INTO package_names (rowid, owner, name)
SELECT -p.id, pact_fold(a.username), pact_fold(p.pack_slug || ' ' || p.name)
FROM packages p JOIN accounts a ON a.id = p.owner_id ORDER BY p.id DESC;
INSERT INTO package_texts (rowid, owner, name, description)
SELECT -p.id, pact_fold(a.username), pact_fold(p.pack_slug || ' ' || p.name), pact_fold(p.description)
FROM packages p JOIN accounts a ON a.id = p.owner_id ORDER BY p.id DESC;
INSERT INTO package_slugs (rowid, slug) SELECT -id, ' ' || pack_slug || ' ' FROM packages ORDER BY id DESC;
