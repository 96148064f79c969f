-- Suggestions (SuggestSlugs) find the slugs nearest a query through this
-- GiST index with a similarity floor (`<<%`, pg_trgm's strict word
-- similarity, threshold set on the search pool's sessions). With the
-- default 12-byte signatures the index could prune almost nothing among a
-- million slugs: a query like nothing there ("postgers") walked the whole
-- index, 3.2 s. 256-byte signatures prune (11 ms) and make a smaller index.
DROP INDEX packages_slug_trigrams;
CREATE INDEX packages_slug_trigrams ON packages USING gist (pack_slug gist_trgm_ops(siglen = 256));
