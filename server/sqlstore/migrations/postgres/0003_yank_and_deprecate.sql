-- A yanked version is never the latest and is not offered in lists, but
-- its exact address keeps serving it (docs/protocol.md, Yanking). NULL
-- yanked_at: not yanked.
ALTER TABLE versions ADD COLUMN yanked_at TIMESTAMPTZ;
ALTER TABLE versions ADD COLUMN yank_reason TEXT NOT NULL DEFAULT '';

-- A package's deprecation message; '' when it is not deprecated.
ALTER TABLE packages ADD COLUMN deprecated TEXT NOT NULL DEFAULT '';
