package httpx

import "net/netip"

// AddressKey is what a client address's budgets (API requests, log-ins,
// sign-ups) are counted under: an IPv4 address whole, an IPv6 address by
// its /64, the smallest block a site is normally given, so that one host
// cannot take a fresh budget from each of its 2^64 addresses.
func AddressKey(ip string) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	addr = addr.Unmap().WithZone("")
	if addr.Is4() {
		return addr.String()
	}
	prefix, err := addr.Prefix(64)
	if err != nil {
		return addr.String()
	}
	return prefix.String()
}
