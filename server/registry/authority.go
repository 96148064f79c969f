package registry

import (
	"strings"

	"github.com/pact-registry/pact/pkg/routes"
)

// The authority table: who may do what, decided here and nowhere else
// (docs/protocol.md, Who may do what). Every route of pactd names one
// operation (Routes), every operation has one rule (rules), and Permit
// applies a rule to a credential. The HTTP side asks Permit before a
// route's handler runs (the owner and pack its path names); the domain
// asks it again once it knows the pack a request acts on (a publish names
// its pack only in the document, a hook or trusted publisher in its body),
// and Can adds the organisation roles. A route without a row is refused
// (server's gate), and the every-route test fails on it.

// Op names one thing a caller may do.
type Op string

// Reach is the kind of credential an operation needs.
type Reach string

const (
	// ReachPublic needs no credential, or carries its own proof that the
	// route checks: an SSH signature, an ID token, a device code, a
	// password or a passkey.
	ReachPublic Reach = "public"
	// ReachToken needs an active token of any scope, or a session: reads
	// of the caller's own account.
	ReachToken Reach = "token"
	// ReachAccount acts on the whole account: a session, or a token with
	// the rule's scope and no pack limit.
	ReachAccount Reach = "account"
	// ReachPack acts on packs: a session, or a token with the rule's scope
	// whose pack globs cover the pack; organisation roles as Can says.
	ReachPack Reach = "pack"
	// ReachSession needs a logged-in browser session (past the second
	// factor when the account has one); a token never reaches it.
	ReachSession Reach = "session"
)

// Rule is the row of one operation.
type Rule struct {
	Reach Reach
	// Scopes are the token scopes the operation needs (ReachAccount and
	// ReachPack).
	Scopes []Scope
	// What says the operation in a refusal: "this token cannot <What>".
	What string
	// NotCI refuses tokens a CI job exchanged through a trusted publisher
	// (trust.go): a CI job must not change the lock that makes it the
	// only way to publish.
	NotCI bool
}

// The operations, one per row of rules.
const (
	OpRead          Op = "read"           // public pages, documents, the log, the API's reads
	OpSignedPublish Op = "publish-signed" // the SSH signature is the credential
	OpExchange      Op = "oidc-exchange"  // the CI's ID token is the credential
	OpDeviceStart   Op = "device-login"   // pact login starting and polling; the device code is the credential
	OpLogIn         Op = "log-in"         // sign-up, log-in and log-out forms, passkey log-in, the second factor
	OpWhoAmI        Op = "whoami"         // the caller's own account and token
	OpListKeys      Op = "ssh-keys.list"
	OpKeys          Op = "ssh-keys.change"
	OpTokens        Op = "tokens"
	OpListOrgs      Op = "orgs.list"
	OpOrgs          Op = "orgs"
	OpMembers       Op = "orgs.members"
	OpPublish       Op = "publish"
	OpRelease       Op = "release"
	OpYank          Op = "yank"
	OpDeprecate     Op = "deprecate"
	OpLock          Op = "trusted-publishing-only.on"
	OpUnlock        Op = "trusted-publishing-only.off"
	OpTrust         Op = "trusted-publishers"
	OpTrustAdd      Op = "trusted-publishers.add"
	OpHooks         Op = "hooks"
	OpDashboard     Op = "dashboard"      // the dashboard's pages, which show the session's own account
	OpDeviceApprove Op = "device-approve" // approving a pact login in the browser
	OpAccount       Op = "account"        // password, sessions, log-out everywhere
	OpSecondFactor  Op = "second-factor"  // passkeys, the second factor, recovery codes
)

var rules = map[Op]Rule{
	OpRead:          {Reach: ReachPublic},
	OpSignedPublish: {Reach: ReachPublic},
	OpExchange:      {Reach: ReachPublic},
	OpDeviceStart:   {Reach: ReachPublic},
	OpLogIn:         {Reach: ReachPublic},
	OpWhoAmI:        {Reach: ReachToken},
	OpListKeys:      {Reach: ReachToken},
	OpListOrgs:      {Reach: ReachToken},
	OpKeys:          {Reach: ReachAccount, Scopes: []Scope{ScopeKeys}, What: "add or remove SSH keys, which sign publishes of every pack of the account"},
	OpTokens:        {Reach: ReachAccount, Scopes: []Scope{ScopeTokens}, What: "list, make or revoke tokens, which reach the whole account"},
	OpOrgs:          {Reach: ReachAccount, Scopes: []Scope{ScopeTokens}, What: "create an organisation"},
	OpMembers:       {Reach: ReachAccount, Scopes: []Scope{ScopeTokens}, What: "change an organisation's members, who reach every pack of it"},
	OpPublish:       {Reach: ReachPack, Scopes: []Scope{ScopePublish}, What: "publish"},
	OpRelease:       {Reach: ReachPack, Scopes: []Scope{ScopePublish}, What: "register releases"},
	OpYank:          {Reach: ReachPack, Scopes: []Scope{ScopeYank}, What: "yank or un-yank"},
	OpDeprecate:     {Reach: ReachPack, Scopes: []Scope{ScopeYank}, What: "deprecate"},
	OpLock:          {Reach: ReachPack, Scopes: []Scope{ScopeYank}, What: "change trusted_publishing_only", NotCI: true},
	OpUnlock:        {Reach: ReachSession, What: "turn trusted_publishing_only off (the lock is there for the day a token is stolen)"},
	OpTrust:         {Reach: ReachPack, Scopes: []Scope{ScopeTokens}, What: "manage trusted publishers"},
	// A trusted publisher is a way to get tokens and to publish.
	OpTrustAdd:      {Reach: ReachPack, Scopes: []Scope{ScopeTokens, ScopePublish}, What: "add trusted publishers"},
	OpHooks:         {Reach: ReachPack, Scopes: []Scope{ScopeHooks}, What: "manage webhooks"},
	OpDashboard:     {Reach: ReachSession, What: "use the dashboard"},
	OpDeviceApprove: {Reach: ReachSession, What: "approve a log-in of the command line"},
	OpAccount:       {Reach: ReachSession, What: "change the account's password or sessions"},
	OpSecondFactor:  {Reach: ReachSession, What: "change passkeys, the second factor or recovery codes"},
}

// RuleOf answers the rule of op; ok is false for an operation without one.
func RuleOf(op Op) (Rule, bool) {
	r, ok := rules[op]
	return r, ok
}

// EveryPack is the pack of an action that reaches every pack of its owner
// (a hook or a listing of the whole owner): a token limited to packs may
// not take it.
const EveryPack = "*"

// Permit is the one decision of what a credential may do: token t (nil for
// a logged-in browser session, which holds every power of its account) of
// holder takes op on owner/pack. owner "" is the holder's own namespace;
// pack "" means the pack is not known yet (a publish before its document
// is parsed), EveryPack every pack of owner. It answers Forbidden naming
// what is missing; organisation roles are Can's.
func Permit(t *Token, op Op, holder, owner, pack string) error {
	r, ok := rules[op]
	if !ok {
		return Errorf(Forbidden, "no rule says who may do this")
	}
	switch {
	case r.Reach == ReachPublic:
		return nil
	case r.Reach == ReachSession && t != nil:
		return &Error{Code: Forbidden, Reason: "session_only",
			Message: "an API token cannot " + r.What + "; only a logged-in browser session may, on the dashboard"}
	case t == nil:
		return nil
	}
	if r.NotCI && t.CI != nil {
		return &Error{Code: Forbidden, Reason: "trusted_publishing_token",
			Message: "a token from trusted publishing cannot " + r.What + ": a CI job must not change the lock that makes it the only way to publish"}
	}
	for _, scope := range r.Scopes {
		if !t.HasScope(scope) {
			return &Error{Code: Forbidden, Reason: "scope",
				Message: "this token lacks the \"" + string(scope) + "\" scope, so it cannot " + r.What + "; make a token with it (pact token create --scope " + string(scope) + ")"}
		}
	}
	if t.Packages == nil {
		return nil
	}
	switch r.Reach {
	case ReachAccount:
		return &Error{Code: Forbidden, Reason: "token_packages",
			Message: "this token is limited to the packs " + strings.Join(t.Packages, ", ") + ", so it cannot " + r.What +
				"; use a token without packages, or the dashboard"}
	case ReachPack:
		if pack == "" {
			return nil
		}
		if pack == EveryPack {
			return &Error{Code: Forbidden, Reason: "token_packages",
				Message: "this token is limited to the packs " + strings.Join(t.Packages, ", ") + ", so it cannot " + r.What +
					" of every pack of " + cmpOwner(owner, holder) + "; name a package or use a token without packages"}
		}
		name := strings.ToLower(pack)
		if o := strings.ToLower(owner); o != "" && o != strings.ToLower(holder) {
			name = o + "/" + name
		}
		if !MatchesPackages(t.Packages, name) {
			return &Error{Code: Forbidden, Reason: "token_packages",
				Message: "this token's \"" + string(r.Scopes[0]) + "\" scope is limited to the packs " + strings.Join(t.Packages, ", ") +
					", and \"" + name + "\" is not one of them"}
		}
	}
	return nil
}

func cmpOwner(owner, holder string) string {
	if owner == "" {
		return holder
	}
	return owner
}

// Route is one route of pactd and the operation it takes. Path is as Gin
// registers it (":owner", "*path"): pkg/routes' for the machine paths,
// which clients fill in too; a GET route answers HEAD too.
type Route struct {
	Method, Path string
	Op           Op
}

// Routes are every route pactd serves, the API's and the pages'.
var Routes = []Route{
	// The API's machine paths and documents.
	{"GET", routes.OpenAPI, OpRead},
	{"GET", routes.Healthz, OpRead},
	{"GET", routes.Readyz, OpRead},
	{"GET", routes.Metrics, OpRead},
	{"GET", routes.Raw, OpRead},
	{"GET", routes.LogCheckpoint, OpRead},
	{"GET", routes.LogKey, OpRead},
	{"GET", routes.LogPolicy, OpRead},
	{"GET", routes.LogTile, OpRead},
	{"GET", routes.LogProof, OpRead},
	// The REST interface.
	{"GET", routes.Packages, OpRead},
	{"GET", routes.Package, OpRead},
	{"GET", routes.PackageDownloads, OpRead},
	{"GET", routes.ContractReleases, OpRead},
	{"GET", routes.ContractRelease, OpRead},
	{"GET", routes.Org, OpRead},
	{"GET", routes.OrgMembers, OpRead},
	{"POST", routes.PublishSigned, OpSignedPublish},
	{"POST", routes.OIDCExchange, OpExchange},
	{"POST", routes.DeviceLogin, OpDeviceStart},
	{"POST", routes.DeviceLoginToken, OpDeviceStart},
	{"GET", routes.Me, OpWhoAmI},
	{"GET", routes.SSHKeys, OpListKeys},
	{"POST", routes.SSHKeys, OpKeys},
	{"DELETE", routes.SSHKey, OpKeys},
	{"GET", routes.Tokens, OpTokens},
	{"POST", routes.Tokens, OpTokens},
	{"DELETE", routes.Token, OpTokens},
	{"GET", routes.Orgs, OpListOrgs},
	{"POST", routes.Orgs, OpOrgs},
	{"PUT", routes.OrgMember, OpMembers},
	{"DELETE", routes.OrgMember, OpMembers},
	{"POST", routes.Publish, OpPublish},
	{"POST", routes.Releases, OpRelease},
	{"POST", routes.Yank, OpYank},
	{"POST", routes.Unyank, OpYank},
	{"POST", routes.Deprecate, OpDeprecate},
	// Turning trusted_publishing_only off is OpUnlock, which the domain
	// asks once it has read the body.
	{"PATCH", routes.Package, OpLock},
	{"GET", routes.TrustedPublishers, OpTrust},
	{"POST", routes.TrustedPublishers, OpTrustAdd},
	{"DELETE", routes.TrustedPublisher, OpTrust},
	{"GET", routes.Hooks, OpHooks},
	{"POST", routes.Hooks, OpHooks},
	{"DELETE", routes.Hook, OpHooks},
	{"GET", routes.HookDeliveries, OpHooks},
	{"POST", routes.HookRedeliver, OpHooks},

	// The pages.
	{"GET", "/", OpRead},
	{"GET", "/docs", OpRead},
	{"GET", "/static/*file", OpRead},
	{"GET", "/log", OpRead},
	{"GET", "/log/entry/:index", OpRead},
	{"GET", "/:owner", OpRead},
	{"GET", "/:owner/:pack", OpRead},
	{"GET", "/signup", OpLogIn},
	{"POST", "/signup", OpLogIn},
	{"GET", "/login", OpLogIn},
	{"POST", "/login", OpLogIn},
	{"GET", "/logout", OpLogIn},
	{"POST", "/logout", OpLogIn},
	{"POST", "/login/passkey/begin", OpLogIn},
	{"POST", "/login/passkey/finish", OpLogIn},
	// The second factor's pages take the half-logged-in session that a
	// correct password started; they check it themselves.
	{"GET", "/login/second-factor", OpLogIn},
	{"POST", "/login/second-factor/begin", OpLogIn},
	{"POST", "/login/second-factor/finish", OpLogIn},
	{"POST", "/login/second-factor/recovery", OpLogIn},
	{"GET", "/login/device", OpDeviceApprove},
	{"POST", "/login/device", OpDeviceApprove},
	{"POST", "/login/device/decide", OpDeviceApprove},
	{"GET", "/dashboard", OpDashboard},
	{"GET", "/dashboard/tokens", OpDashboard},
	{"GET", "/dashboard/keys", OpDashboard},
	{"GET", "/dashboard/orgs", OpDashboard},
	{"GET", "/dashboard/trusted-publishers", OpDashboard},
	{"GET", "/dashboard/hooks", OpDashboard},
	{"GET", "/dashboard/account", OpDashboard},
	{"GET", "/dashboard/hooks/:id", OpDashboard},
	{"GET", "/dashboard/packages", OpDashboard},
	{"GET", "/dashboard/package/:owner/:pack", OpDashboard},
	{"POST", "/dashboard/package/:owner/:pack/versions/:version/yank", OpYank},
	{"POST", "/dashboard/package/:owner/:pack/versions/:version/unyank", OpYank},
	{"POST", "/dashboard/package/:owner/:pack/deprecate", OpDeprecate},
	{"POST", "/dashboard/hooks", OpHooks},
	{"POST", "/dashboard/hooks/:id/remove", OpHooks},
	{"POST", "/dashboard/tokens", OpTokens},
	{"POST", "/dashboard/tokens/:id/revoke", OpTokens},
	{"POST", "/dashboard/keys", OpKeys},
	{"POST", "/dashboard/keys/:id/delete", OpKeys},
	{"POST", "/dashboard/trusted-publishers", OpTrustAdd},
	{"POST", "/dashboard/trusted-publishers/:id/remove", OpTrust},
	{"POST", "/dashboard/packages/:pack/trusted-publishing-only", OpUnlock},
	{"POST", "/dashboard/orgs", OpOrgs},
	{"POST", "/dashboard/orgs/:org/members", OpMembers},
	{"POST", "/dashboard/orgs/:org/members/:username/remove", OpMembers},
	{"POST", "/dashboard/password", OpAccount},
	{"POST", "/dashboard/sessions/:id/end", OpAccount},
	{"POST", "/dashboard/logout-everywhere", OpAccount},
	{"POST", "/dashboard/passkeys/begin", OpSecondFactor},
	{"POST", "/dashboard/passkeys/finish", OpSecondFactor},
	{"POST", "/dashboard/passkeys/:id/delete", OpSecondFactor},
	{"POST", "/dashboard/second-factor", OpSecondFactor},
	{"POST", "/dashboard/recovery-codes", OpSecondFactor},
	{"POST", "/dashboard/orgs/:org/second-factor", OpSecondFactor},
}

// RouteOp answers the operation of the route method path (a HEAD takes
// its GET's row); ok is false for a route the table lacks.
func RouteOp(method, path string) (Op, bool) {
	if method == "HEAD" {
		method = "GET"
	}
	op, ok := routeOps[routeKey{method, path}]
	return op, ok
}

// routeKey is a struct, not "METHOD path", so a look-up allocates nothing.
type routeKey struct{ method, path string }

var routeOps = func() map[routeKey]Op {
	m := make(map[routeKey]Op, len(Routes))
	for _, r := range Routes {
		m[routeKey{r.Method, r.Path}] = r.Op
	}
	return m
}()
