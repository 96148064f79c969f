-- Token scopes (docs/protocol.md, Token scopes). scopes holds the scope
-- names separated by single spaces; NULL means every scope, present and
-- future, which is what every token made before this migration keeps, and
-- '' means none. packages holds the pack-name globs that limit the publish
-- and yank scopes, separated by single spaces; NULL means every pack.
ALTER TABLE tokens ADD COLUMN scopes TEXT;
ALTER TABLE tokens ADD COLUMN packages TEXT;
