-- The address block a login of the command line came from (registry/device.go,
-- DeviceLoginBlock: an IPv4 /24, an IPv6 /48), so the logins waiting are
-- bounded per block as well as in all, and a full table makes the fullest
-- block give way rather than refuse everybody.
ALTER TABLE device_logins ADD COLUMN ip_block TEXT NOT NULL DEFAULT '';
CREATE INDEX device_logins_ip_block ON device_logins (ip_block, expires_at);
