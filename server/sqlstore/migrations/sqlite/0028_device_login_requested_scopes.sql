-- The scopes a login of the command line asks for (pact login --scope),
-- which the approval page ticks first (registry/device.go): scope names
-- separated by spaces, as in tokens; NULL when it asks for none.
ALTER TABLE device_logins ADD COLUMN requested_scopes TEXT;
