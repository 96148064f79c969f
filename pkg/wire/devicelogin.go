package wire

// Logging in the command line through the browser (docs/protocol.md,
// Logging in through the browser), shaped as RFC 8628's device
// authorization grant.

// DeviceLoginRequest is the optional body of POST /api/login/device.
type DeviceLoginRequest struct {
	// Name is the name of the token the login makes, which the user may
	// change when approving; absent: "pact login".
	Name *string `json:"name,omitempty"`
	// Scopes are the scopes the command line asks for (pact login
	// --scope): the approval page ticks them first, and the user decides.
	// Absent or empty: it asks for none, and the page ticks none.
	Scopes []string `json:"scopes,omitempty"`
}

// DeviceLoginRequestFields are the fields of DeviceLoginRequest; the
// server refuses others.
var DeviceLoginRequestFields = []string{"name", "scopes"}

// DeviceLogin answers POST /api/login/device: the codes of a login that
// waits for its approval in the browser.
type DeviceLogin struct {
	OK bool `json:"ok"`
	// DeviceCode is the command line's secret, sent back with every poll
	// of POST /api/login/device/token; never shown.
	DeviceCode string `json:"device_code"`
	// UserCode is what the user types, or checks, on VerificationURI.
	UserCode string `json:"user_code"`
	// VerificationURI is the page that approves the login;
	// VerificationURIComplete is the same with the user code in its query.
	VerificationURI         string `json:"verification_uri"`
	VerificationURIComplete string `json:"verification_uri_complete"`
	// ExpiresIn is the seconds the codes last; Interval the least seconds
	// between two polls.
	ExpiresIn int `json:"expires_in"`
	Interval  int `json:"interval"`
}

// DeviceTokenRequest is the body of POST /api/login/device/token, a poll.
type DeviceTokenRequest struct {
	DeviceCode string `json:"device_code"`
}

// DeviceTokenRequestFields are the fields of DeviceTokenRequest.
var DeviceTokenRequestFields = []string{"device_code"}

// The codes of the refusals of POST /api/login/device/token (Error.Code),
// as RFC 8628 names them.
const (
	// DeviceAuthorizationPending: not approved yet; poll again after the
	// interval.
	DeviceAuthorizationPending = "authorization_pending"
	// DeviceSlowDown: polled sooner than the interval after the previous
	// poll; wait longer (RFC 8628: 5 seconds more from now on).
	DeviceSlowDown = "slow_down"
	// DeviceExpiredToken: the device code expired, was collected already,
	// or is unknown; begin again.
	DeviceExpiredToken = "expired_token"
	// DeviceAccessDenied: the user denied the login.
	DeviceAccessDenied = "access_denied"
)
