package wire

import "time"

// TrustedPublisher lets CI jobs publish with no stored token
// (docs/protocol.md, Trusted publishing).
type TrustedPublisher struct {
	ID       int64    `json:"id"`
	Issuer   string   `json:"issuer"`
	Packages []string `json:"packages"`
	// Claims must all be present in the ID token, each equal.
	Claims map[string]string `json:"claims"`
	// NamesOnly is true when Claims hold none of repository_id,
	// repository_owner_id, project_id and namespace_id: the trust names
	// its repository or project by names only, and passes to whoever
	// re-creates one of those names.
	NamesOnly bool      `json:"names_only"`
	CreatedAt time.Time `json:"created_at"`
	// ExpiresAt is the expiry of the token that added it; null: it lasts
	// until removed (added from the dashboard, or by a token that never
	// expires).
	ExpiresAt *time.Time `json:"expires_at"`
	// CreatedBy is who added it; null for those added before pact
	// recorded it.
	CreatedBy *Maker `json:"created_by"`
}

// Maker is who made a grant: a user, and the API token it used.
type Maker struct {
	Username string `json:"username"`
	// TokenID is the id of the token; null when made from the dashboard.
	TokenID *int64 `json:"token_id"`
}

// TrustedPublisherRequest is the body of POST /api/trusted-publishers.
type TrustedPublisherRequest struct {
	// Owner is the organisation whose packs the publisher may publish,
	// managed by its owners; "" or absent for the caller's own.
	Owner    string            `json:"owner,omitempty"`
	Issuer   string            `json:"issuer"`
	Packages []string          `json:"packages"`
	Claims   map[string]string `json:"claims"`
}

// TrustedPublisherRequestFields are the fields of TrustedPublisherRequest;
// the server refuses others.
var TrustedPublisherRequestFields = []string{"owner", "issuer", "packages", "claims"}

// TrustedPublisherList answers GET /api/trusted-publishers.
type TrustedPublisherList struct {
	OK                bool               `json:"ok"`
	TrustedPublishers []TrustedPublisher `json:"trusted_publishers"`
}

// CreatedTrustedPublisher answers POST /api/trusted-publishers.
type CreatedTrustedPublisher struct {
	OK        bool              `json:"ok"`
	ID        int64             `json:"id"`
	Issuer    string            `json:"issuer"`
	Packages  []string          `json:"packages"`
	Claims    map[string]string `json:"claims"`
	NamesOnly bool              `json:"names_only"`
	CreatedAt time.Time         `json:"created_at"`
	ExpiresAt *time.Time        `json:"expires_at"`
	CreatedBy *Maker            `json:"created_by"`
}

// OIDCExchangeRequest is the body of POST /api/oidc/exchange.
type OIDCExchangeRequest struct {
	Token string `json:"token"`
	// Owner is the user or organisation whose trusted publishers alone
	// are considered; "" for every account's.
	Owner string `json:"owner,omitempty"`
}

// OIDCExchange answers POST /api/oidc/exchange: a token with the publish
// scope only, limited to Packages, expiring within 15 minutes.
type OIDCExchange struct {
	OK        bool      `json:"ok"`
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
	Packages  []string  `json:"packages"`
}

// CI is the CI job that published a version through trusted publishing,
// as its ID token said; "" for what the token did not say.
type CI struct {
	Issuer     string `json:"issuer"`
	Repository string `json:"repository"` // GitHub's repository, GitLab's project_path
	Workflow   string `json:"workflow"`   // GitHub's job_workflow_ref, GitLab's ci_config_ref_uri
	Ref        string `json:"ref"`
	SHA        string `json:"sha"`
	RunID      string `json:"run_id"` // GitHub's run_id, GitLab's pipeline_id
}
