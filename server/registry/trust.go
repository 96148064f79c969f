package registry

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pact-registry/pact/pkg/clip"
)

// TrustedPublisher lets CI jobs publish an account's packs with no stored
// token: an OpenID Connect ID token from Issuer carrying every one of
// Claims, compared exactly, is exchanged for a short publish token limited
// to Packages (docs/protocol.md, Trusted publishing).
//
// A trusted publisher is a grant, and a grant never exceeds its maker: a
// token adding one needs the publish scope, the packs must lie within the
// token's, and it expires when the token does (AddTrustedPublisher).
type TrustedPublisher struct {
	ID        int64
	AccountID int64
	Issuer    string
	Packages  []string // pack-name globs, as a token's Packages
	Claims    map[string]string
	CreatedAt time.Time
	// ExpiresAt is the expiry of the token that made it; nil (made from
	// the dashboard, or by a token that never expires) lasts until it is
	// removed. An expired one matches no ID token.
	ExpiresAt *time.Time
	// CreatedBy is who made it; nil for those made before pact recorded it.
	CreatedBy *Maker
}

// Maker is who made a grant: an account, and the id of the API token it
// used (0: from the dashboard, with no token).
type Maker struct {
	AccountID int64
	Username  string // read back with the grant; stores keep AccountID
	TokenID   int64
}

// Active reports whether p matches ID tokens at now: it has not expired.
func (p *TrustedPublisher) Active(now time.Time) bool {
	return p.ExpiresAt == nil || now.Before(*p.ExpiresAt)
}

// TrustStore keeps trusted publishers and the jti of the ID tokens
// exchanged.
type TrustStore interface {
	// ListTrustedPublishers lists an account's trusted publishers, oldest first.
	ListTrustedPublishers(ctx context.Context, accountID int64) ([]TrustedPublisher, error)
	// TrustedPublishersByIssuer lists every account's trusted publishers
	// of one issuer, oldest first.
	TrustedPublishersByIssuer(ctx context.Context, issuer string) ([]TrustedPublisher, error)
	// DeleteTrustedPublisher deletes one of accountID's trusted
	// publishers; NotFound otherwise.
	DeleteTrustedPublisher(ctx context.Context, accountID, id int64) error
}

// ErrJTIReused refuses an ID token exchanged once already.
var ErrJTIReused = &Error{Code: Unauthorized, Message: "jti check failed: this ID token was exchanged already; every job run gets a fresh one", Reason: "jti_reused"}

// Bounds of trusted publishers.
const (
	MaxTrustedPublishers = 50  // per account
	MaxClaimValueLength  = 300 // a job_workflow_ref is a repository, a path and a ref
	MaxIssuerLength      = 200
	// ExchangedTokenLifetime is how long a token from an ID token lasts.
	ExchangedTokenLifetime = 15 * time.Minute
	// ExchangedTokenScope is the one scope an exchanged token holds.
	ExchangedTokenScope = ScopePublish
)

// KnownClaims are the claims a trusted publisher may require: GitHub
// Actions' and GitLab CI's (docs/protocol.md, Trusted publishing).
var KnownClaims = []string{
	"repository", "repository_id", "repository_owner", "repository_owner_id", "job_workflow_ref", "workflow_ref",
	"workflow", "environment", "ref",
	"project_path", "project_id", "namespace_path", "namespace_id", "ci_config_ref_uri",
}

// BindingClaims are the numeric ids of a repository or project and of its
// owner, which GitHub and GitLab never give to another: a trust that
// requires one is bound to that repository, project or owner, while a
// trust by names only passes to whoever creates a repository of that name
// after it is renamed, deleted or transferred.
var BindingClaims = []string{"repository_id", "repository_owner_id", "project_id", "namespace_id"}

// maxIDClaimLength bounds a binding claim, a decimal id.
const maxIDClaimLength = 20

// NamesOnly reports whether p requires none of BindingClaims, so that it
// names its repository or project by names only.
func (p *TrustedPublisher) NamesOnly() bool {
	return !slices.ContainsFunc(BindingClaims, func(c string) bool { return p.Claims[c] != "" })
}

// IdentifyingClaims name the repository or project; a trusted publisher
// requires at least one, so no trust covers every job of an issuer.
var IdentifyingClaims = []string{"repository", "project_path"}

// TrustedPublisherSpec is a trusted publisher as a client asks for it.
type TrustedPublisherSpec struct {
	// Owner is the organisation whose packs the publisher may publish;
	// "" for the caller's own.
	Owner    string
	Issuer   string
	Packages []string
	Claims   map[string]string
}

// AllowedIssuer reports whether issuer is one the operator allows
// (--oidc-issuer).
func (s *Service) AllowedIssuer(issuer string) bool {
	return slices.Contains(s.oidcIssuers, issuer)
}

// OIDCIssuers are the issuers the operator allows, in the order given.
func (s *Service) OIDCIssuers() []string { return slices.Clone(s.oidcIssuers) }

// CheckIssuerURL says whether u may be an allowed issuer: an https URL, or
// http on a loopback address (for tests), with no query or fragment.
func CheckIssuerURL(u string) error {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" || p.RawQuery != "" || p.Fragment != "" || p.User != nil || len(u) > MaxIssuerLength {
		return Errorf(Invalid, "issuer %q is not an https URL such as https://token.actions.githubusercontent.com", clip.Text(u, 200))
	}
	switch p.Scheme {
	case "https":
		return nil
	case "http":
		host := p.Hostname()
		if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || host == "localhost" {
			return nil
		}
	}
	return Errorf(Invalid, "issuer %q is not https (plain http is allowed only on loopback addresses)", clip.Text(u, 200))
}

// AddTrustedPublisher stores a trusted publisher of actor, or of the
// organisation spec.Owner, whose owners manage its trusted publishers.
// maker is the token the request came with (nil from the dashboard); it
// needs the tokens scope, since a trusted publisher is a way to get tokens,
// and the publish scope, since it is a way to publish. The publisher never
// exceeds its maker (docs/protocol.md, Trusted publishing): its packs lie
// within the token's publish packs (withinPackages), and it expires when
// the token does.
func (s *Service) AddTrustedPublisher(ctx context.Context, actor *Account, maker *Token, spec TrustedPublisherSpec) (*TrustedPublisher, error) {
	if err := Permit(maker, OpTrustAdd, actor.Username, spec.Owner, ""); err != nil {
		return nil, err
	}
	owner, err := s.trustOwner(ctx, actor, spec.Owner)
	if err != nil {
		return nil, err
	}
	accountID := owner.ID
	if spec.Issuer == "" {
		return nil, Errorf(Invalid, "issuer is required, such as https://token.actions.githubusercontent.com")
	}
	if !s.AllowedIssuer(spec.Issuer) {
		if len(s.oidcIssuers) == 0 {
			return nil, Errorf(Invalid, "this registry allows no OpenID Connect issuer (pactd serve --oidc-issuer)")
		}
		return nil, Errorf(Invalid, "issuer %q is not allowed here; allowed: %s", clip.Text(spec.Issuer, 200), strings.Join(s.oidcIssuers, ", "))
	}
	if spec.Packages == nil {
		return nil, Errorf(Invalid, "packages is required: the packs or globs such as \"widget-*\" this publisher may publish")
	}
	packages, err := ParsePackages(spec.Packages)
	if err != nil {
		return nil, err
	}
	if err := checkTrustWithin(maker, owner, actor, packages); err != nil {
		return nil, err
	}
	claims, err := checkClaims(spec.Claims)
	if err != nil {
		return nil, err
	}
	existing, err := s.store.ListTrustedPublishers(ctx, accountID)
	if err != nil {
		return nil, err
	}
	if len(existing) >= MaxTrustedPublishers {
		return nil, Errorf(Conflict, "this account has %d trusted publishers, the most it may; remove some first", len(existing))
	}
	p := &TrustedPublisher{AccountID: accountID, Issuer: spec.Issuer, Packages: packages, Claims: claims, CreatedAt: s.now(),
		CreatedBy: &Maker{AccountID: actor.ID, Username: actor.Username}}
	if maker != nil {
		p.CreatedBy.TokenID = maker.ID
		if maker.ExpiresAt != nil {
			expires := *maker.ExpiresAt
			p.ExpiresAt = &expires
		}
	}
	// Can decided that actor may (an owner, in an organisation); the
	// store checks it again as it stores p.
	var requireOwner int64
	if owner.IsOrg() {
		requireOwner = actor.ID
	}
	if err := CreateTrustedPublisher(ctx, s.store, p, requireOwner); err != nil {
		return nil, err
	}
	if s.auditing() {
		s.emit(ctx, Event{Action: ActionTrustedPublisherAdd, Actor: actor.Username, TrustedPublisherID: p.ID,
			Message: fmt.Sprintf("%s added %s", actor.Username, describeTrustedPublisher(p))})
	}
	return p, nil
}

// checkTrustWithin refuses packages that the token maker may not publish:
// each glob must be one of the token's globs, or a pack name they match
// (withinPackages). A trusted publisher of the organisation owner names
// its packs without "org/", which the token, acting for actor, names with
// it.
func checkTrustWithin(maker *Token, owner, actor *Account, packages []string) error {
	if maker == nil || maker.Packages == nil {
		return nil
	}
	for _, g := range packages {
		asMaker := g
		if owner.ID != actor.ID && !strings.Contains(g, "/") {
			asMaker = owner.Username + "/" + g
		}
		if !withinPackages(maker.Packages, asMaker) {
			return Errorf(Forbidden, "package glob %q is not among this token's publish packs %s: a trusted publisher may publish only what the token adding it may; use one of its globs or a pack name they match",
				asMaker, strings.Join(maker.Packages, ", "))
		}
	}
	return nil
}

func checkClaims(claims map[string]string) (map[string]string, error) {
	if len(claims) == 0 {
		return nil, Errorf(Invalid, "claims is required and must name %s", strings.Join(IdentifyingClaims, " or "))
	}
	out := make(map[string]string, len(claims))
	for name, value := range claims {
		if !slices.Contains(KnownClaims, name) {
			return nil, Errorf(Invalid, "claim %q is not known: use %s", clip.Text(name, 40), strings.Join(KnownClaims, ", "))
		}
		if value == "" {
			return nil, Errorf(Invalid, "claim %q must not be empty: leave it out to accept any value", name)
		}
		if len(value) > MaxClaimValueLength {
			return nil, Errorf(Invalid, "claim %q is longer than %d bytes", name, MaxClaimValueLength)
		}
		if err := checkLabel("claim "+name, value, MaxClaimValueLength, false); err != nil {
			return nil, err
		}
		if slices.Contains(BindingClaims, name) && !decimalID(value) {
			return nil, Errorf(Invalid, "claim %q must be a decimal id of at most %d digits, such as 123456", name, maxIDClaimLength)
		}
		out[name] = value
	}
	if !slices.ContainsFunc(IdentifyingClaims, func(c string) bool { return out[c] != "" }) {
		return nil, Errorf(Invalid, "claims must name %s, so that the trust covers one repository or project", strings.Join(IdentifyingClaims, " or "))
	}
	return out, nil
}

// ListTrustedPublishers lists the trusted publishers of actor, or of the
// organisation owner ("" for actor's own) when actor is one of its owners,
// oldest first. maker is the token the request came with (nil from the
// dashboard): one limited to packs sees only the publishers within them.
func (s *Service) ListTrustedPublishers(ctx context.Context, actor *Account, maker *Token, owner string) ([]TrustedPublisher, error) {
	if err := Permit(maker, OpTrust, actor.Username, owner, ""); err != nil {
		return nil, err
	}
	o, err := s.trustOwner(ctx, actor, owner)
	if err != nil {
		return nil, err
	}
	list, err := s.store.ListTrustedPublishers(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(list, func(p TrustedPublisher) bool {
		return checkTrustWithin(maker, o, actor, p.Packages) != nil
	}), nil
}

// DeleteTrustedPublisher deletes one of the trusted publishers of actor,
// or of the organisation owner when actor is one of its owners.
func (s *Service) DeleteTrustedPublisher(ctx context.Context, actor *Account, owner string, maker *Token, id int64) error {
	if err := Permit(maker, OpTrust, actor.Username, owner, ""); err != nil {
		return err
	}
	o, err := s.trustOwner(ctx, actor, owner)
	if err != nil {
		return err
	}
	// The publisher is read first: a token limited to packs removes only
	// the publishers within them (the others are not told apart from
	// missing ones), and the audit line describes it once it is gone.
	gone := &TrustedPublisher{ID: id}
	if maker != nil && maker.Packages != nil || s.auditing() {
		list, err := s.store.ListTrustedPublishers(ctx, o.ID)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(list, func(p TrustedPublisher) bool { return p.ID == id })
		if i >= 0 {
			gone = &list[i]
		}
		if i < 0 || checkTrustWithin(maker, o, actor, gone.Packages) != nil {
			return Errorf(NotFound, "no trusted publisher %d", id)
		}
	}
	if err := s.store.DeleteTrustedPublisher(ctx, o.ID, id); err != nil || !s.auditing() {
		return err
	}
	s.emit(ctx, Event{Action: ActionTrustedPublisherRemove, Actor: actor.Username, TrustedPublisherID: id,
		Message: fmt.Sprintf("%s removed %s", actor.Username, describeTrustedPublisher(gone))})
	return nil
}

// trustOwner answers the account whose trusted publishers actor manages:
// its own, or the organisation named owner, of which it must be an owner.
func (s *Service) trustOwner(ctx context.Context, actor *Account, owner string) (*Account, error) {
	owner = strings.ToLower(strings.TrimSpace(owner))
	if owner == "" || owner == actor.Username {
		if err := checkUser(actor); err != nil {
			return nil, err
		}
		return actor, nil
	}
	o, err := s.orgAccount(ctx, owner)
	if err != nil {
		return nil, err
	}
	if err := s.Can(ctx, actor, ActTrust, o); err != nil {
		return nil, err
	}
	return o, nil

}

// describeTrustedPublisher is "trusted publisher 3 (https://token.actions.githubusercontent.com,
// repository org/repo, packages widget-*)".
func describeTrustedPublisher(p *TrustedPublisher) string {
	if p.Issuer == "" {
		return fmt.Sprintf("trusted publisher %d", p.ID)
	}
	return fmt.Sprintf("trusted publisher %d (%s, %s, packages %s)", p.ID, p.Issuer, describeIdentity(p.Claims), strings.Join(p.Packages, " "))
}

// IDToken is an OpenID Connect ID token whose signature, issuer, audience,
// expiry and not-before were verified (server/oidc does that).
type IDToken struct {
	Issuer string
	JTI    string
	Expiry time.Time
	// Claims are the token's string claims; others are left out.
	Claims map[string]string
}

// Exchange is what an ID token was exchanged for.
type Exchange struct {
	Secret   string
	Token    *Token
	Packages []string
	Account  *Account
}

// ExchangeIDToken matches a verified ID token against the trusted
// publishers of its issuer that have not expired, those of the account
// owner only when owner is not "", and issues a token with the publish
// scope only, limited to the matched publishers' packages, for
// ExchangedTokenLifetime at most and never beyond their expiry, spending
// the ID token's jti in the transaction that stores it: an exchange
// refused, or failed, leaves the jti usable. The token records the
// publishers, so that their removal can revoke it. Without owner,
// publishers of more than one account matching is refused: any account may
// declare any claims, so naming the owner is what keeps another account's
// trust from blocking the exchange.
func (s *Service) ExchangeIDToken(ctx context.Context, tok IDToken, owner string) (*Exchange, error) {
	if !s.AllowedIssuer(tok.Issuer) {
		return nil, Errorf(Unauthorized, "issuer check failed: %q is not an issuer this registry allows", clip.Text(tok.Issuer, 200))
	}
	if tok.JTI == "" {
		return nil, Errorf(Unauthorized, "jti check failed: the ID token has no jti claim, so it could be replayed")
	}
	if len(tok.JTI) > MaxClaimValueLength {
		return nil, Errorf(Unauthorized, "jti check failed: the jti claim is longer than %d bytes", MaxClaimValueLength)
	}
	publishers, of, err := s.exchangeCandidates(ctx, tok.Issuer, owner)
	if err != nil {
		return nil, err
	}
	now := s.now()
	var matched []TrustedPublisher
	for _, p := range publishers {
		if p.Issuer == tok.Issuer && p.Active(now) && claimsMatch(p.Claims, tok.Claims) {
			matched = append(matched, p)
		}
	}
	if len(matched) == 0 {
		return nil, Errorf(Forbidden, "claims check failed: no trusted publisher of issuer %s%s matches this job's claims (%s)", tok.Issuer, of, describeIdentity(tok.Claims))
	}
	accountID := matched[0].AccountID
	for _, p := range matched[1:] {
		if p.AccountID != accountID {
			return nil, Errorf(Forbidden, "claims check failed: trusted publishers of more than one account match this job's claims (%s); "+
				"name the account whose packs it publishes: \"owner\" in the exchange (pact publish --owner NAME)", describeIdentity(tok.Claims))
		}
	}
	acct, err := s.store.AccountByID(ctx, accountID)
	if err != nil {
		return nil, err
	}
	if err := checkAccountEnabled(acct); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var packages []string
	var via []int64
	expires := now.Add(ExchangedTokenLifetime)
	for _, p := range matched {
		via = append(via, p.ID)
		if p.ExpiresAt != nil && p.ExpiresAt.Before(expires) {
			// The token outlasts none of the trusted publishers it came from.
			expires = *p.ExpiresAt
		}
		for _, g := range p.Packages {
			if !seen[g] {
				seen[g] = true
				packages = append(packages, g)
			}
		}
	}
	sort.Strings(packages)
	if len(packages) > MaxTokenPackages {
		packages = packages[:MaxTokenPackages]
	}
	name := "trusted publishing, " + describeIdentity(tok.Claims)
	if checkLabel("token name", name, 100, false) != nil {
		name = "trusted publishing"
	}
	secret, t, err := s.issueToken(ctx, accountID, nil, TokenSpec{Name: name, Scopes: []string{string(ExchangedTokenScope)},
		Packages: packages, ExpiresAt: &expires, CI: identityOf(tok), TrustedPublishers: via,
		JTI: &JTISpend{Issuer: tok.Issuer, JTI: tok.JTI, ExpiresAt: tok.Expiry, Now: now}})
	if err != nil {
		return nil, err
	}
	s.emit(ctx, Event{Action: ActionTokenExchange, Actor: acct.Username, TokenID: t.ID,
		Message: fmt.Sprintf("a CI job (%s, %s) exchanged an ID token for %s's token %d, for packages %s",
			describeIdentity(tok.Claims), tok.Issuer, acct.Username, t.ID, strings.Join(packages, " "))})
	return &Exchange{Secret: secret, Token: t, Packages: packages, Account: acct}, nil
}

// decimalID reports whether s is an id as GitHub and GitLab write them.
func decimalID(s string) bool {
	return len(s) <= maxIDClaimLength && strings.Trim(s, "0123456789") == ""
}

// exchangeCandidates answers the trusted publishers an exchange considers:
// every account's of issuer, or only those of the account named owner
// when owner is not "", and ", among those of <owner>," for messages then.
func (s *Service) exchangeCandidates(ctx context.Context, issuer, owner string) ([]TrustedPublisher, string, error) {
	owner = strings.ToLower(strings.TrimSpace(owner))
	if owner == "" {
		list, err := s.store.TrustedPublishersByIssuer(ctx, issuer)
		return list, "", err
	}
	if len(owner) > 64 || checkLabel("owner", owner, 64, false) != nil {
		return nil, "", Errorf(Invalid, "owner must be a user's or an organisation's name, at most 39 characters")
	}
	acct, err := s.AccountByUsername(ctx, owner)
	if IsCode(err, NotFound) {
		return nil, "", Errorf(Forbidden, "claims check failed: there is no user or organisation %s", clip.Text(owner, 40))
	}
	if err != nil {
		return nil, "", err
	}
	list, err := s.store.ListTrustedPublishers(ctx, acct.ID)
	return list, ", among those of " + acct.Username + ",", err
}

func claimsMatch(want, got map[string]string) bool {
	for name, value := range want {
		if v, ok := got[name]; !ok || v != value {
			return false
		}
	}
	return len(want) > 0
}

// describeIdentity names a CI job by its repository or project, for
// messages and token names.
func describeIdentity(claims map[string]string) string {
	for _, c := range IdentifyingClaims {
		if v := claims[c]; v != "" {
			return c + " " + clip.Text(v, 40)
		}
	}
	return "no repository or project_path claim"
}

// CIIdentity is the CI job that published a version with a token from
// trusted publishing, as its ID token said (docs/protocol.md, Trusted
// publishing): what the API, the version's page and the transparency log
// show. Empty fields were not in the token.
type CIIdentity struct {
	Issuer     string `json:"issuer"`
	Repository string `json:"repository"` // GitHub's repository, GitLab's project_path
	Workflow   string `json:"workflow"`   // GitHub's job_workflow_ref, GitLab's ci_config_ref_uri
	Ref        string `json:"ref"`
	SHA        string `json:"sha"`
	RunID      string `json:"run_id"` // GitHub's run_id, GitLab's pipeline_id
}

// identityOf reads the CI identity of a verified ID token. A value that is
// not printable text of at most MaxClaimValueLength is left out, so what
// the page and the log show is safe to show.
func identityOf(tok IDToken) *CIIdentity {
	pick := func(names ...string) string {
		for _, n := range names {
			if v := tok.Claims[n]; v != "" && checkLabel(n, v, MaxClaimValueLength, false) == nil && len(v) <= MaxClaimValueLength {
				return v
			}
		}
		return ""
	}
	return &CIIdentity{Issuer: tok.Issuer, Repository: pick("repository", "project_path"),
		Workflow: pick("job_workflow_ref", "workflow_ref", "ci_config_ref_uri"), Ref: pick("ref"), SHA: pick("sha"),
		RunID: pick("run_id", "pipeline_id")}
}

// CreateExchangedToken stores t, a token exchanged for an ID token,
// through st, in one transaction that spends the ID token's jti (SpendJTI):
// ErrJTIReused, and nothing stored, when the jti was spent already; the jti
// stays unspent when the token is not stored. The transaction holds the
// token's account row, as a member's removal holds the organisation's, and
// finds each trusted publisher the token came through still there
// (Forbidden otherwise), so a removal never misses a token exchanged
// through what it removes. NotFound when the account does not exist,
// Conflict when a token has t's hash.
func CreateExchangedToken(ctx context.Context, st Transactor, t *Token, jti JTISpend) error {
	return st.Tx(ctx, func(tx Tx) error {
		if err := accountThere(tx.LockAccount, t.AccountID); err != nil {
			return err
		}
		for _, id := range t.TrustedPublishers {
			has, err := tx.HasTrustedPublisher(t.AccountID, id)
			if err != nil {
				return err
			}
			if !has {
				return Errorf(Forbidden, "claims check failed: the trusted publisher %d this job matched was removed meanwhile; nothing was issued", id)
			}
		}
		if err := spendJTI(tx, jti); err != nil {
			return err
		}
		return tx.InsertToken(t)
	})
}

// SpendJTI records through st that the ID token (j.Issuer, j.JTI), valid
// until j.ExpiresAt, was exchanged, and forgets those that expired before
// j.Now. ErrJTIReused when it was spent already: an ID token is exchanged
// once.
func SpendJTI(ctx context.Context, st Transactor, j JTISpend) error {
	return st.Tx(ctx, func(tx Tx) error { return spendJTI(tx, j) })
}

func spendJTI(tx Tx, j JTISpend) error {
	if err := tx.DeleteExpiredJTIs(j.Now); err != nil {
		return err
	}
	fresh, err := tx.SpendJTI(j.Issuer, j.JTI, j.ExpiresAt)
	if err != nil {
		return err
	}
	if !fresh {
		return ErrJTIReused
	}
	return nil
}

// CreateTrustedPublisher stores p through st and sets p.ID; NotFound when
// its account does not exist. requireOwner, when not 0, is a
// precondition: p's account is an organisation and requireOwner one of its
// owners, checked in the transaction that stores p, holding the
// organisation's row as a member's removal does (Forbidden otherwise), so
// that an owner removed meanwhile cannot leave a trusted publisher behind.
func CreateTrustedPublisher(ctx context.Context, st Transactor, p *TrustedPublisher, requireOwner int64) error {
	return st.Tx(ctx, func(tx Tx) error {
		if err := accountThere(tx.AccountExists, p.AccountID); err != nil {
			return err
		}
		if requireOwner != 0 {
			if err := tx.LockOrg(p.AccountID); err != nil {
				return err
			}
			role, err := tx.MemberRole(p.AccountID, requireOwner)
			if err != nil {
				return err
			}
			if role != RoleOwner {
				return Errorf(Forbidden, "only owners of the organisation may add its trusted publishers")
			}
		}
		return tx.InsertTrustedPublisher(p)
	})
}
