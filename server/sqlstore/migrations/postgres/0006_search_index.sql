-- The search index (docs/protocol.md, "Search"): the distinct trigrams of
-- each package's searched text, keyed by the package's latest version id
-- so that a search walks one trigram's packages newest first and stops at
-- the page size. Derived data: a trigger keeps it in step with packages in
-- the same transaction (publish, restore, any later change of the latest
-- version), and dumps leave it out. The same table and queries serve
-- SQLite (a GIN index, pg_trgm's, cannot hand rows back in list order).
--
-- The searched text is "owner/slug", the name and the description, folded
-- by lower() and joined by line breaks, which no search word contains.
-- Trigrams are counted in characters, as substr counts them.
CREATE TABLE package_grams (
    gram              TEXT COLLATE "C" NOT NULL,
    latest_version_id BIGINT NOT NULL,
    package_id        BIGINT NOT NULL,
    PRIMARY KEY (gram, latest_version_id, package_id)
);

CREATE FUNCTION package_search_text(owner_id BIGINT, pack_slug TEXT, name TEXT, description TEXT) RETURNS TEXT
LANGUAGE sql STABLE AS $$
    SELECT lower((SELECT username FROM accounts WHERE id = $1) || '/' || $2 || chr(10) || $3 || chr(10) || $4)
$$;

CREATE FUNCTION package_grams_of(s TEXT) RETURNS SETOF TEXT
LANGUAGE sql IMMUTABLE AS $$
    SELECT DISTINCT substr($1, n, 3) FROM generate_series(1, length($1) - 2) AS n
$$;

-- A package gets its trigrams once it has a latest version (the publish
-- inserts it with latest_version_id 0 and sets it in the same transaction).
-- A bulk load (Store.Seed, Store.Restore) sets pact.search_index_deferred
-- for its transaction and indexes what it loaded in one pass before it
-- commits.
CREATE FUNCTION package_grams_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('pact.search_index_deferred', true) = 'on' THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.latest_version_id <> 0 THEN
        IF TG_OP = 'UPDATE' AND OLD.latest_version_id = NEW.latest_version_id AND OLD.name = NEW.name
           AND OLD.description = NEW.description AND OLD.pack_slug = NEW.pack_slug AND OLD.owner_id = NEW.owner_id THEN
            RETURN NULL;
        END IF;
        DELETE FROM package_grams
        WHERE package_id = OLD.id AND latest_version_id = OLD.latest_version_id
          AND gram IN (SELECT package_grams_of(package_search_text(OLD.owner_id, OLD.pack_slug, OLD.name, OLD.description)));
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.latest_version_id <> 0 THEN
        INSERT INTO package_grams (gram, latest_version_id, package_id)
        SELECT g, NEW.latest_version_id, NEW.id
        FROM package_grams_of(package_search_text(NEW.owner_id, NEW.pack_slug, NEW.name, NEW.description)) AS g
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER package_grams_sync AFTER INSERT OR UPDATE OR DELETE ON packages
FOR EACH ROW EXECUTE FUNCTION package_grams_sync();

-- What is there already (Store.indexPackages does the same).
INSERT INTO package_grams (gram, latest_version_id, package_id)
SELECT g, p.latest_version_id, p.id
FROM packages p, package_grams_of(package_search_text(p.owner_id, p.pack_slug, p.name, p.description)) AS g
WHERE p.latest_version_id <> 0
ORDER BY 1, 2, 3
ON CONFLICT DO NOTHING;

-- Exact and prefix matches of slugs (search ranks 0 and 1), in byte order
-- whatever the database's collation, so that a prefix is one range.
CREATE INDEX packages_slug_latest ON packages ((pack_slug COLLATE "C"), latest_version_id DESC);
