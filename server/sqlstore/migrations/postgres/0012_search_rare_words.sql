-- Rare words through a GIN index (docs/design.md, "Search"): a word whose
-- trigrams are each in a few thousand packages but seldom together (an exact
-- slug among a million "pack-NNNNNNN") cost a walk of every posting of the
-- rarest trigram, a look-up per posting. A GIN index intersects the
-- trigrams' posting lists instead and hands back the few packages that have
-- them all. It cannot hand rows back in package order, so the walk stays for
-- everything else: the store asks the index only once the walk's first batch
-- left the page short and the rarest trigram is estimated rare.
--
-- The searched text of each package, folded as package_search_text folds
-- it, one row per package, written only when that text changes (as
-- package_grams is), so that a publish of a new version touches neither.
CREATE TABLE package_texts (
    package_id BIGINT PRIMARY KEY,
    text       TEXT COLLATE "C" NOT NULL
);

-- The distinct trigrams of an already folded text, as package_grams_of
-- (an array for the GIN index; IMMUTABLE, as an index expression must be:
-- substr counts characters whatever the locale).
CREATE FUNCTION package_grams_array(s TEXT) RETURNS TEXT[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT array_agg(DISTINCT substr($1, n, 3)) FROM generate_series(1, length($1) - 2) AS n
$$;

-- The triggers of migration 0009 keep package_texts as well.
CREATE OR REPLACE FUNCTION package_grams_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    new_text TEXT;
BEGIN
    IF current_setting('pact.search_index_deferred', true) = 'on' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN
        DELETE FROM package_grams
        WHERE package_id = OLD.id
          AND gram IN (SELECT package_grams_of(package_search_text(OLD.owner_id, OLD.pack_slug, OLD.name, OLD.description)));
        DELETE FROM package_texts WHERE package_id = OLD.id;
        RETURN NULL;
    END IF;
    new_text := package_search_text(NEW.owner_id, NEW.pack_slug, NEW.name, NEW.description);
    IF TG_OP = 'UPDATE' THEN
        DELETE FROM package_grams
        WHERE package_id = OLD.id
          AND gram IN (SELECT package_grams_of(package_search_text(OLD.owner_id, OLD.pack_slug, OLD.name, OLD.description))
                       EXCEPT
                       SELECT package_grams_of(new_text));
    END IF;
    INSERT INTO package_grams (gram, package_id)
    SELECT g, NEW.id
    FROM package_grams_of(new_text) AS g
    ON CONFLICT DO NOTHING;
    INSERT INTO package_texts (package_id, text) VALUES (NEW.id, new_text)
    ON CONFLICT (package_id) DO UPDATE SET text = EXCLUDED.text;
    RETURN NULL;
END
$$;

-- What is there already (Store.indexPackages does the same), then the index
-- over it in one pass.
INSERT INTO package_texts (package_id, text)
SELECT p.id, package_search_text(p.owner_id, p.pack_slug, p.name, p.description)
FROM packages p
ORDER BY p.id;

-- Written in place, not through a pending list: a search then never reads a
-- list of recent changes on top of the index.
CREATE INDEX package_texts_grams ON package_texts USING gin (package_grams_array(text)) WITH (fastupdate = off);
