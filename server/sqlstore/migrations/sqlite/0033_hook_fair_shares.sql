-- Fair shares of the webhook workers (registry/hook.go; docs/operations.md,
-- Webhooks). leased_until is set when a worker claims a delivery and
-- cleared when its attempt is recorded: the deliveries leased now are those
-- in flight, which a claim counts by the user who made their hook
-- (hooks.created_by) across every replica. slow_answers counts a hook's
-- latest attempts in a row that took half the timeout or more; from
-- registry.HookSlowStreak on, its deliveries get half the timeout.
ALTER TABLE hook_deliveries ADD COLUMN leased_until TIMESTAMP;
CREATE INDEX hook_deliveries_leased ON hook_deliveries (leased_until) WHERE leased_until IS NOT NULL;
ALTER TABLE hooks ADD COLUMN slow_answers INTEGER NOT NULL DEFAULT 0;
CREATE INDEX hooks_created_by ON hooks (created_by);
