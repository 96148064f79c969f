package wire

import "time"

// The headers of a webhook delivery.
const (
	HeaderHookEvent     = "Pact-Event"
	HeaderHookDelivery  = "Pact-Delivery"
	HeaderHookSignature = "Pact-Signature"
)

// HookRequest is the body of POST /api/hooks. owner defaults to the
// caller, package to every pack of the owner.
type HookRequest struct {
	Owner   *string  `json:"owner,omitempty"`
	Package *string  `json:"package,omitempty"`
	URL     *string  `json:"url,omitempty"`
	Secret  *string  `json:"secret,omitempty"`
	Events  []string `json:"events,omitempty"`
}

// HookRequestFields are the fields of HookRequest; the server refuses
// others.
var HookRequestFields = []string{"owner", "package", "url", "secret", "events"}

// Hook is a webhook as the API shows it: never its secret.
type Hook struct {
	ID    int64  `json:"id"`
	Owner string `json:"owner"`
	// Package is the one pack the hook is told of; "" for every pack of
	// its owner.
	Package   string    `json:"package"`
	URL       string    `json:"url"`
	Events    []string  `json:"events"`
	CreatedAt time.Time `json:"created_at"`
	// FailingSince is the first failed attempt since the last success;
	// null while deliveries succeed.
	FailingSince *time.Time `json:"failing_since"`
	// DisabledAt is when the hook was disabled for failing for days
	// (null while enabled), and DisabledNote why.
	DisabledAt   *time.Time `json:"disabled_at"`
	DisabledNote string     `json:"disabled_note"`
}

// HookResult answers POST /api/hooks (201).
type HookResult struct {
	OK   bool `json:"ok"`
	Hook Hook `json:"hook"`
}

// HookList answers GET /api/hooks.
type HookList struct {
	OK    bool   `json:"ok"`
	Hooks []Hook `json:"hooks"`
}

// HookDelivery is one event queued for a hook, and its last attempt.
type HookDelivery struct {
	ID       int64  `json:"id"`
	Event    string `json:"event"`
	Owner    string `json:"owner"`
	Package  string `json:"package"`
	Version  string `json:"version"`
	LogIndex *int64 `json:"log_index"`
	// State is pending, delivered or failed.
	State     string    `json:"state"`
	CreatedAt time.Time `json:"created_at"`
	Attempts  int       `json:"attempts"`
	// Time is the last attempt's (null before the first), Status the
	// receiver's HTTP status (0: no answer), DurationMS how long it took,
	// Error what went wrong ("" on success).
	Time       *time.Time `json:"time"`
	Status     int        `json:"status"`
	DurationMS int64      `json:"duration_ms"`
	Error      string     `json:"error"`
	// NextAttemptAt is when a pending delivery is tried next; null once
	// it is delivered or failed.
	NextAttemptAt *time.Time `json:"next_attempt_at"`
}

// HookDeliveryList answers GET /api/hooks/{id}/deliveries: the newest 50.
type HookDeliveryList struct {
	OK         bool           `json:"ok"`
	Hook       Hook           `json:"hook"`
	Deliveries []HookDelivery `json:"deliveries"`
}

// HookDeliveryResult answers POST /api/hooks/{id}/deliveries/{delivery}/redeliver.
type HookDeliveryResult struct {
	OK       bool         `json:"ok"`
	Delivery HookDelivery `json:"delivery"`
}

// HookPayload is the JSON body of a webhook delivery (docs/protocol.md,
// Webhooks). Entry and Proof are the log entry's text and its offline
// proof (C2SP tlog-proof, as GET /log/proof/{index} answers) against the
// checkpoint served when it was sent; a deprecation carries the package's
// pack-state entry that records it (Kind "pack-state"). LogIndex is null
// only in a deprecation queued by a pactd older than pack-state entries.
type HookPayload struct {
	Event    string    `json:"event"`
	Kind     string    `json:"kind"`
	Delivery string    `json:"delivery"`
	HookID   int64     `json:"hook_id"`
	Time     time.Time `json:"time"`
	Owner    string    `json:"owner"`
	Package  string    `json:"package"`
	Version  string    `json:"version"`
	LogIndex *int64    `json:"log_index"`
	Entry    string    `json:"entry"`
	Proof    string    `json:"proof"`
	// Message is a deprecation's message ("" when it was withdrawn).
	Message string `json:"message"`
}
