-- The search index keyed by package, not by latest version
-- (docs/design.md, "Search"): a publish of a new version whose owner/slug,
-- name and description are unchanged touches no trigram row, and one that
-- changes them writes the difference only. A search's "other" matches come
-- in package id order (newest package first), which no publish changes.
--
-- The table is rebuilt from what is there, in one sorted pass.
DROP TRIGGER package_grams_sync ON packages;
DROP FUNCTION package_grams_sync();
DROP TABLE package_grams;

CREATE TABLE package_grams (
    gram       TEXT COLLATE "C" NOT NULL,
    package_id BIGINT NOT NULL,
    PRIMARY KEY (gram, package_id)
);

-- Every package has its trigrams, with a latest version or not (a search
-- reads only packages that have one). An update writes only when the
-- searched text changed, and then only the difference. A bulk load
-- (Store.Seed, Store.Restore) sets pact.search_index_deferred for its
-- transaction and indexes what it loaded in one pass before it commits.
CREATE FUNCTION package_grams_sync() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('pact.search_index_deferred', true) = 'on' THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN
        DELETE FROM package_grams
        WHERE package_id = OLD.id
          AND gram IN (SELECT package_grams_of(package_search_text(OLD.owner_id, OLD.pack_slug, OLD.name, OLD.description)));
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        DELETE FROM package_grams
        WHERE package_id = OLD.id
          AND gram IN (SELECT package_grams_of(package_search_text(OLD.owner_id, OLD.pack_slug, OLD.name, OLD.description))
                       EXCEPT
                       SELECT package_grams_of(package_search_text(NEW.owner_id, NEW.pack_slug, NEW.name, NEW.description)));
    END IF;
    INSERT INTO package_grams (gram, package_id)
    SELECT g, NEW.id
    FROM package_grams_of(package_search_text(NEW.owner_id, NEW.pack_slug, NEW.name, NEW.description)) AS g
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;

CREATE TRIGGER package_grams_sync AFTER INSERT OR DELETE ON packages
FOR EACH ROW EXECUTE FUNCTION package_grams_sync();

-- A new latest version with the same text does not even call the function.
CREATE TRIGGER package_grams_sync_text AFTER UPDATE OF name, description, pack_slug, owner_id ON packages
FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.description IS DISTINCT FROM NEW.description
                   OR OLD.pack_slug IS DISTINCT FROM NEW.pack_slug OR OLD.owner_id IS DISTINCT FROM NEW.owner_id)
EXECUTE FUNCTION package_grams_sync();

-- What is there already (Store.indexPackages does the same).
INSERT INTO package_grams (gram, package_id)
SELECT DISTINCT g, p.id
FROM packages p, package_grams_of(package_search_text(p.owner_id, p.pack_slug, p.name, p.description)) AS g
ORDER BY 1, 2
ON CONFLICT DO NOTHING;

-- The packages of an owner, newest package first (a search whose words
-- are all shorter than a trigram finds the owner of that name).
CREATE INDEX packages_owner_id ON packages (owner_id, id);
