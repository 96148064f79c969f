-- Search on PostgreSQL's own full-text search (docs/design.md, "Search").
-- The hand-built trigram index of migrations 0006, 0009 and 0012 goes; a
-- table of tsvectors with two GIN indexes takes its place, keyed by package,
-- so that a publish of a new version whose searched text is unchanged
-- touches nothing of it:
--
--   names: the owner (weight B), the slug and the name (weight A), what
--     the name rank matches;
--   texts: the same and the description (weight C), every match.
--
-- Typos are forgiven through pg_trgm (a GiST index of the slugs, whose
-- nearest neighbours are the suggestions). Both extensions ship with
-- PostgreSQL's contrib and are trusted: a database owner may create them.
DROP TRIGGER package_grams_sync ON packages;
DROP TRIGGER package_grams_sync_text ON packages;
DROP FUNCTION package_grams_sync();
DROP TABLE package_texts;
DROP FUNCTION package_grams_array(TEXT);
DROP TABLE package_grams;
DROP FUNCTION package_grams_of(TEXT);
DROP FUNCTION package_search_text(BIGINT, TEXT, TEXT, TEXT);

CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- Words as the slugs fold them: without diacritics (unaccent), lower case
-- (simple), no stemming and no stop words, so that a name is found by what
-- it says.
CREATE TEXT SEARCH CONFIGURATION pact_search (COPY = simple);
ALTER TEXT SEARCH CONFIGURATION pact_search
    ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part, numword, numhword, hword_numpart
    WITH unaccent, simple;

-- The parser reads "owner-0001/pack-2" as a signed number and a path, and
-- "v1.2" as a version: ASCII punctuation separates words first, as it does
-- in slugs and on SQLite.
CREATE FUNCTION package_search_vector(t TEXT) RETURNS tsvector
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT to_tsvector('pact_search', regexp_replace(t, '[[:punct:]]+', ' ', 'g'))
$$;

CREATE TABLE package_search (
    package_id BIGINT PRIMARY KEY,
    names      tsvector NOT NULL,
    texts      tsvector NOT NULL
);

-- One row per package, written only when its searched text changes. A
-- bulk load (Store.Seed, Store.Restore) sets pact.search_index_deferred for
-- its transaction and indexes what it loaded in one pass before it commits.
CREATE FUNCTION package_search_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('pact.search_index_deferred', true) = 'on' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN
        DELETE FROM package_search WHERE package_id = OLD.id;
        RETURN NULL;
    END IF;
    INSERT INTO package_search (package_id, names, texts)
    SELECT NEW.id, v.names, v.names || setweight(package_search_vector(NEW.description), 'C')
    FROM (SELECT setweight(package_search_vector(coalesce((SELECT username FROM accounts WHERE id = NEW.owner_id), '')), 'B')
                 || setweight(package_search_vector(NEW.pack_slug || ' ' || NEW.name), 'A') AS names) v
    ON CONFLICT (package_id) DO UPDATE SET names = EXCLUDED.names, texts = EXCLUDED.texts;
    RETURN NULL;
END
$$;

CREATE TRIGGER package_search_sync AFTER INSERT OR DELETE ON packages
FOR EACH ROW EXECUTE FUNCTION package_search_sync();

-- A new latest version with the same text does not even call the function.
CREATE TRIGGER package_search_sync_text AFTER UPDATE OF name, description, pack_slug, owner_id ON packages
FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.description IS DISTINCT FROM NEW.description
                   OR OLD.pack_slug IS DISTINCT FROM NEW.pack_slug OR OLD.owner_id IS DISTINCT FROM NEW.owner_id)
EXECUTE FUNCTION package_search_sync();

-- What is there already (Store.indexPackages does the same).
INSERT INTO package_search (package_id, names, texts)
SELECT v.id, v.names, v.names || setweight(package_search_vector(v.description), 'C')
FROM (SELECT p.id, p.description,
             setweight(package_search_vector(a.username), 'B') || setweight(package_search_vector(p.pack_slug || ' ' || p.name), 'A') AS names
      FROM packages p JOIN accounts a ON a.id = p.owner_id) v
ORDER BY v.id;

-- Written in place, not through a pending list: a search then never reads a
-- list of recent changes on top of the index.
CREATE INDEX package_search_names ON package_search USING gin (names) WITH (fastupdate = off);
CREATE INDEX package_search_texts ON package_search USING gin (texts) WITH (fastupdate = off);
CREATE INDEX packages_slug_trigrams ON packages USING gist (pack_slug gist_trgm_ops);
