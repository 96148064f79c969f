package wire

import "time"

// Organisations (docs/protocol.md, Organisations).

// OrgRequest is the body of POST /api/orgs.
type OrgRequest struct {
	Name        string `json:"name"`
	DisplayName string `json:"display_name,omitempty"`
}

// OrgRequestFields are the fields of OrgRequest; the server refuses others.
var OrgRequestFields = []string{"name", "display_name"}

// Org is an organisation as GET /api/orgs/{org} shows it.
type Org struct {
	Name        string    `json:"name"`
	DisplayName string    `json:"display_name"`
	URL         string    `json:"url"`
	Packages    int64     `json:"packages"` // packages with a latest version
	Members     []Member  `json:"members"`  // every member is public: changes are in the transparency log
	CreatedAt   time.Time `json:"created_at"`
}

// Member is one member of an organisation.
type Member struct {
	Username string    `json:"username"`
	Role     string    `json:"role"` // owner or maintainer
	AddedAt  time.Time `json:"added_at"`
}

// OrgResult answers POST /api/orgs (201) and GET /api/orgs/{org}.
type OrgResult struct {
	OK  bool `json:"ok"`
	Org Org  `json:"org"`
}

// MemberList answers GET /api/orgs/{org}/members.
type MemberList struct {
	OK      bool     `json:"ok"`
	Members []Member `json:"members"`
}

// Membership is the caller's membership of an organisation, as GET
// /api/orgs lists them.
type Membership struct {
	Name    string    `json:"name"`
	Role    string    `json:"role"` // owner or maintainer
	AddedAt time.Time `json:"added_at"`
}

// MembershipList answers GET /api/orgs: the caller's organisations.
type MembershipList struct {
	OK   bool         `json:"ok"`
	Orgs []Membership `json:"orgs"`
}

// MemberRequest is the body of PUT /api/orgs/{org}/members/{username}.
type MemberRequest struct {
	Role string `json:"role"`
}

// MemberRequestFields are the fields of MemberRequest.
var MemberRequestFields = []string{"role"}

// MemberResult answers PUT /api/orgs/{org}/members/{username}.
type MemberResult struct {
	OK     bool   `json:"ok"`
	Member Member `json:"member"`
	// RemovedTrustedPublishers and RevokedTokens are what demoting an
	// owner took away: the trusted publishers it had added for the
	// organisation, and the ids of the tokens exchanged through them that
	// were active. Empty for every other change.
	RemovedTrustedPublishers []TrustedPublisher `json:"removed_trusted_publishers"`
	RevokedTokens            []int64            `json:"revoked_tokens"`
}

// MemberRemoved answers DELETE /api/orgs/{org}/members/{username}: what
// the removal took away, as MemberResult says.
type MemberRemoved struct {
	OK                       bool               `json:"ok"`
	RemovedTrustedPublishers []TrustedPublisher `json:"removed_trusted_publishers"`
	RevokedTokens            []int64            `json:"revoked_tokens"`
}

// PublishedBy is who published a version: the account (a member, for an
// organisation's package) and how it authenticated.
type PublishedBy struct {
	Username string `json:"username"`
	// Auth is "token", "ssh-signature" or "oidc" (a token from trusted
	// publishing; the version's ci names the job).
	Auth string `json:"auth"`
	// TokenID is the id of the publisher's token (token and oidc); null
	// for a signed publish, whose key is the version's signature.
	TokenID *int64 `json:"token_id"`
}
