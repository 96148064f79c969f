package registry

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/pact-registry/pact/pkg/clip"
	"github.com/pact-registry/pact/pkg/translog"
)

// Organisations (docs/protocol.md, Organisations; docs/design.md,
// Organisations): an organisation is an Account of KindOrg, in the one
// namespace of usernames, that owns packages. It cannot log in, hold
// tokens (but for the short ones its trusted publishers exchange) or keys;
// its members act for it, each with a Role. Can is the one check of who
// may do what in a namespace.

// The kinds of account.
const (
	KindUser = "user"
	KindOrg  = "org"
)

// IsOrg reports whether a is an organisation.
func (a *Account) IsOrg() bool { return a.Kind == KindOrg }

// Role is what a member may do in an organisation.
type Role string

const (
	// RoleOwner manages members, trusted publishers, deprecations and
	// package settings, and does what a maintainer does.
	RoleOwner Role = "owner"
	// RoleMaintainer publishes and yanks.
	RoleMaintainer Role = "maintainer"
)

// ParseRole checks a role as a client sent it.
func ParseRole(s string) (Role, error) {
	switch r := Role(strings.ToLower(strings.TrimSpace(s))); r {
	case RoleOwner, RoleMaintainer:
		return r, nil
	}
	return "", Errorf(Invalid, "role %q is not known: use owner or maintainer", clip.Text(s, 40))
}

// Member is one account's membership of an organisation.
type Member struct {
	OrgID     int64
	AccountID int64
	Username  string
	Role      Role
	CreatedAt time.Time
}

// Org is an organisation with what its public page shows.
type Org struct {
	Account  *Account
	Members  []Member // owners first, then by username
	Packages int64    // packages with a latest version
}

// Action is what Can is asked about.
type Action string

const (
	ActPublish   Action = "publish"                      // maintainer or owner
	ActYank      Action = "yank"                         // maintainer or owner; un-yank too
	ActDeprecate Action = "deprecate"                    // owner
	ActTrust     Action = "manage trusted publishers of" // owner
	ActMembers   Action = "manage members of"            // owner
	// ActSettings changes a package's settings (trusted publishing
	// only): owner, as deprecating is.
	ActSettings Action = "change the settings of"
	// ActHooks manages webhooks (hook.go): owner.
	ActHooks Action = "manage webhooks of"
)

// needs is the least role an action needs.
func (a Action) needs() Role {
	switch a {
	case ActPublish, ActYank:
		return RoleMaintainer
	}
	return RoleOwner
}

// Bounds of organisations.
const (
	MaxDisplayName   = 100
	MaxOrgMembers    = 500
	MaxOrgsPerCaller = 50 // organisations one account may create
)

// OrgStore keeps organisations and their members. Every change of members
// appends its transparency log entries, which the domain builds
// (MemberLogEntry, TrustedPublisherRemovedLogEntry), in its transaction.
type OrgStore interface {
	// OrgMembers lists an organisation's members, owners first, then by
	// username.
	OrgMembers(ctx context.Context, orgID int64) ([]Member, error)
	// MemberRole answers accountID's role in orgID, "" when it is not a
	// member. Read from the database every time: never cached.
	MemberRole(ctx context.Context, orgID, accountID int64) (Role, error)
	// CountOwned counts the packages of ownerID that have a latest version.
	CountOwned(ctx context.Context, ownerID int64) (int64, error)
	// OrgsOf lists the organisations accountID is a member of, by name.
	OrgsOf(ctx context.Context, accountID int64) ([]Member, error)
	// CountCreatedOrgs counts the organisations of which accountID is
	// an owner.
	CountOwnedOrgs(ctx context.Context, accountID int64) (int64, error)
}

// MemberUpdate is a change of one member of an organisation
// (NewMemberUpdate).
type MemberUpdate struct {
	Org, Member *Account
	Role        Role // the new role; "" for a removal
	By          string
	At          time.Time
}

// NewMemberUpdate is the change by which by gives member role in org (""
// removes it) at at.
func NewMemberUpdate(org, member, by *Account, role Role, at time.Time) MemberUpdate {
	return MemberUpdate{Org: org, Member: member, Role: role, By: by.Username, At: at}
}

// SetOrgMember adds u.Member to u.Org with u.Role, or changes its role, in
// one transaction of st: Changed is false when it had that role already
// (nothing is logged). Conflict when the change would leave the
// organisation without an owner, or take it past MaxOrgMembers. Demoting
// an owner takes its grants with it (revokeGrants). The organisation's row
// is held first, so changes of one organisation's members take turns (on
// every replica): two owners demoting each other at once cannot both
// succeed.
func SetOrgMember(ctx context.Context, st Transactor, u MemberUpdate) (ch *MemberChange, err error) {
	err = st.Tx(ctx, func(tx Tx) error {
		ch = &MemberChange{}
		if err := tx.LockOrg(u.Org.ID); err != nil {
			return err
		}
		old, err := tx.MemberRole(u.Org.ID, u.Member.ID)
		if err != nil {
			return err
		}
		switch {
		case old == u.Role:
		case old == "":
			n, err := tx.CountMembers(u.Org.ID, "")
			if err != nil {
				return err
			}
			if n >= MaxOrgMembers {
				return Errorf(Conflict, "the organisation %s has %d members, the most it may", u.Org.Username, n)
			}
			if err := tx.AddMember(u.Org.ID, u.Member.ID, u.Role, u.At); err != nil {
				return err
			}
			ch.Changed = true
		default:
			if old == RoleOwner {
				if err := notLastOwner(tx, u, "demote"); err != nil {
					return err
				}
			}
			if err := tx.SetMemberRole(u.Org.ID, u.Member.ID, u.Role); err != nil {
				return err
			}
			ch.Changed = true
		}
		var revoked map[int64]int
		if old == RoleOwner && u.Role != RoleOwner {
			if revoked, err = revokeGrants(tx, u, ch); err != nil {
				return err
			}
		}
		if ch.Changed {
			if err := appendMemberEntries(tx, u, ch.RemovedTrustedPublishers, revoked); err != nil {
				return err
			}
		}
		ch.Member, err = tx.Member(u.Org.ID, u.Member.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return ch, nil
}

// RemoveOrgMember removes u.Member from u.Org (u.Role is ""), with its
// grants (revokeGrants), in one transaction of st. NotFound when it is not
// a member; Conflict when it is the last owner.
func RemoveOrgMember(ctx context.Context, st Transactor, u MemberUpdate) (ch *MemberChange, err error) {
	err = st.Tx(ctx, func(tx Tx) error {
		ch = &MemberChange{Changed: true}
		if err := tx.LockOrg(u.Org.ID); err != nil {
			return err
		}
		old, err := tx.MemberRole(u.Org.ID, u.Member.ID)
		if err != nil {
			return err
		}
		switch old {
		case "":
			return Errorf(NotFound, "%s is not a member of the organisation %s", u.Member.Username, u.Org.Username)
		case RoleOwner:
			if err := notLastOwner(tx, u, "remove"); err != nil {
				return err
			}
		}
		if err := tx.DeleteMember(u.Org.ID, u.Member.ID); err != nil {
			return err
		}
		revoked, err := revokeGrants(tx, u, ch)
		if err != nil {
			return err
		}
		return appendMemberEntries(tx, u, ch.RemovedTrustedPublishers, revoked)
	})
	if err != nil {
		return nil, err
	}
	return ch, nil
}

// notLastOwner refuses to demote or remove u.Member when it is u.Org's
// only owner: an organisation always keeps one.
func notLastOwner(tx Tx, u MemberUpdate, what string) error {
	n, err := tx.CountMembers(u.Org.ID, RoleOwner)
	if err != nil {
		return err
	}
	if n <= 1 {
		return Errorf(Conflict, "cannot %s %s: it is the last owner of the organisation %s, which always keeps one; make another member an owner first",
			what, u.Member.Username, u.Org.Username)
	}
	return nil
}

// revokeGrants takes u.Member's grants with its owner role (a grant never
// outlasts its maker's power): it deletes the trusted publishers of u.Org
// that u.Member made and revokes the tokens exchanged through them that
// are active at u.At, lists both in ch, and answers, by trusted
// publisher, how many tokens it revoked through each, for the change's
// log entries. The caller holds the organisation's row, which
// CreateTrustedPublisher (for an owner) and an exchanged token's
// CreateToken take too.
func revokeGrants(tx Tx, u MemberUpdate, ch *MemberChange) (map[int64]int, error) {
	removed, err := tx.TrustedPublishersMadeBy(u.Org.ID, u.Member.ID)
	if err != nil || len(removed) == 0 {
		return nil, err
	}
	gone := map[int64]int{} // trusted publisher id → tokens revoked through it
	for _, p := range removed {
		if err := tx.DeleteTrustedPublisherRow(p.ID); err != nil {
			return nil, err
		}
		gone[p.ID] = 0
	}
	active, err := tx.ActiveExchangedTokens(u.Org.ID, u.At)
	if err != nil {
		return nil, err
	}
	var revoked []int64
	for _, t := range active {
		hit := false
		for _, id := range t.Via {
			if _, ok := gone[id]; ok {
				gone[id]++
				hit = true
			}
		}
		if !hit {
			continue
		}
		if err := tx.RevokeTokenAt(t.ID, u.At); err != nil {
			return nil, err
		}
		revoked = append(revoked, t.ID)
	}
	ch.RemovedTrustedPublishers, ch.RevokedTokens = removed, revoked
	return gone, nil
}

// appendMemberEntries appends a member change's log entries: its
// MemberLogEntry, then one for each trusted publisher the member's lost
// owner role took with it.
func appendMemberEntries(tx Tx, u MemberUpdate, removed []TrustedPublisher, revoked map[int64]int) error {
	entries := []*translog.Entry{MemberLogEntry(u.Org.Username, u.Member.Username, u.Role, u.By, u.At)}
	for i := range removed {
		entries = append(entries, TrustedPublisherRemovedLogEntry(u.Org.Username, u.Member.Username, &removed[i], revoked[removed[i].ID], u.By, u.At))
	}
	for _, e := range entries {
		if _, err := appendEntry(tx, e, 0); err != nil {
			return err
		}
	}
	return nil
}

// MemberChange is what a change of members did.
type MemberChange struct {
	// Member is the membership as it now is; nil after a removal.
	Member  *Member
	Changed bool
	// RemovedTrustedPublishers are the trusted publishers the member had
	// made for the organisation, removed with its owner role (a grant
	// never outlasts its maker's power), oldest first, and RevokedTokens
	// the ids of the tokens exchanged through them that were active.
	RemovedTrustedPublishers []TrustedPublisher
	RevokedTokens            []int64
}

// Can says whether actor may do action in the namespace of owner (a user
// or an organisation): nil, or Forbidden naming what is missing. An
// account may do everything in its own namespace; in an organisation's,
// what its role allows (Action.needs). The role is read from the store
// on every call.
func (s *Service) Can(ctx context.Context, actor *Account, action Action, owner *Account) error {
	if actor.ID == owner.ID {
		return nil
	}
	if !owner.IsOrg() {
		return Errorf(Forbidden, "only %s may %s packages of %s", owner.Username, action, owner.Username)
	}
	if owner.DisabledAt != nil {
		// A disabled organisation is frozen for its members as a disabled
		// user is for its credentials (docs/protocol.md, Disabled accounts).
		return &Error{Code: Forbidden, Reason: "account_disabled",
			Message: "the organisation " + owner.Username + " is disabled: its members may not " + string(action) + " its packages; ask the registry's operator"}
	}
	role, err := s.store.MemberRole(ctx, owner.ID, actor.ID)
	if err != nil {
		return err
	}
	switch {
	case role == "":
		return &Error{Code: Forbidden, Reason: "not_member",
			Message: actor.Username + " is not a member of the organisation " + owner.Username + ", so it may not " + string(action) + " its packages"}
	case action.needs() == RoleOwner && role != RoleOwner:
		return &Error{Code: Forbidden, Reason: "role",
			Message: "only owners of the organisation " + owner.Username + " may " + string(action) + " its packages; " + actor.Username + " is a " + string(role)}
	}
	return nil
}

// CreateOrg makes an organisation named name (the rules of usernames; one
// namespace for both) with creator as its first owner. maker is the token
// the request came with (nil from the dashboard): see checkWholeNamespace.
func (s *Service) CreateOrg(ctx context.Context, creator *Account, maker *Token, name, displayName string) (*Org, error) {
	if err := checkUser(creator); err != nil {
		return nil, err
	}
	if err := Permit(maker, OpOrgs, creator.Username, "", ""); err != nil {
		return nil, err
	}
	u, err := NormalizeUsername(name)
	if err != nil {
		return nil, Errorf(Invalid, "%s", strings.Replace(err.Error(), "username", "organisation name", 1))
	}
	displayName = strings.TrimSpace(displayName)
	if err := checkLabel("display_name", displayName, MaxDisplayName, false); err != nil {
		return nil, err
	}
	n, err := s.store.CountOwnedOrgs(ctx, creator.ID)
	if err != nil {
		return nil, err
	}
	if n >= MaxOrgsPerCaller {
		return nil, Errorf(Conflict, "%s owns %d organisations, the most one account may", creator.Username, n)
	}
	org := &Account{Kind: KindOrg, Username: u, DisplayName: displayName, CreatedAt: s.now()}
	if err := CreateOrg(ctx, s.store, org, creator); err != nil {
		if IsCode(err, Conflict) {
			return nil, Errorf(Conflict, "the name %s is taken by a user or an organisation", u)
		}
		return nil, err
	}
	return s.Org(ctx, u)
}

// CreateOrg stores org as an organisation (Kind KindOrg, setting its ID)
// with creator as its first owner and the creator's member entry
// (MemberLogEntry), in one transaction of st. Conflict when the name is
// taken by a user or an organisation.
func CreateOrg(ctx context.Context, st Transactor, org, creator *Account) error {
	entry := MemberLogEntry(org.Username, creator.Username, RoleOwner, creator.Username, org.CreatedAt)
	return st.Tx(ctx, func(tx Tx) error {
		if err := tx.InsertOrg(org); err != nil {
			return err
		}
		if err := tx.AddMember(org.ID, creator.ID, RoleOwner, org.CreatedAt); err != nil {
			return err
		}
		_, err := appendEntry(tx, entry, 0)
		return err
	})
}

// Org answers the organisation named name; NotFound when there is none
// (also when name is a user).
func (s *Service) Org(ctx context.Context, name string) (*Org, error) {
	acct, err := s.orgAccount(ctx, name)
	if err != nil {
		return nil, err
	}
	members, err := s.store.OrgMembers(ctx, acct.ID)
	if err != nil {
		return nil, err
	}
	n, err := s.store.CountOwned(ctx, acct.ID)
	if err != nil {
		return nil, err
	}
	return &Org{Account: acct, Members: members, Packages: n}, nil
}

// OrgsOf lists the organisations acct is a member of, with its role.
func (s *Service) OrgsOf(ctx context.Context, acct *Account) ([]Member, error) {
	return s.store.OrgsOf(ctx, acct.ID)
}

func (s *Service) orgAccount(ctx context.Context, name string) (*Account, error) {
	acct, err := s.AccountByUsername(ctx, name)
	if IsCode(err, NotFound) || err == nil && !acct.IsOrg() {
		return nil, Errorf(NotFound, "no organisation %s", clip.Text(strings.ToLower(name), 40))
	}
	return acct, err
}

// SetMember gives the user named username role in the organisation named
// org, on behalf of actor, an owner of org; maker is the token the request
// came with (nil from the dashboard): see checkWholeNamespace. Demoting the
// last owner is Conflict. Demoting an owner removes the trusted publishers
// it made for org and revokes the tokens exchanged through them.
func (s *Service) SetMember(ctx context.Context, actor *Account, maker *Token, org, username string, role Role) (*MemberChange, error) {
	o, member, err := s.memberChange(ctx, actor, maker, org, username)
	if err != nil {
		return nil, err
	}
	if _, err := ParseRole(string(role)); err != nil {
		return nil, err
	}
	ch, err := SetOrgMember(ctx, s.store, NewMemberUpdate(o, member, actor, role, s.now()))
	if err != nil {
		return nil, err
	}
	s.grantsRevoked(ctx, actor, o, member, ch)
	return ch, nil
}

// RemoveMember removes the user named username from the organisation
// named org, on behalf of actor, an owner of org; maker as for SetMember.
// Its publishing stops at once: no membership is cached, the trusted
// publishers it made for org are removed and the tokens exchanged through
// them revoked. Removing the last owner is Conflict.
func (s *Service) RemoveMember(ctx context.Context, actor *Account, maker *Token, org, username string) (*MemberChange, error) {
	o, member, err := s.memberChange(ctx, actor, maker, org, username)
	if err != nil {
		return nil, err
	}
	ch, err := RemoveOrgMember(ctx, s.store, NewMemberUpdate(o, member, actor, "", s.now()))
	if err != nil {
		return nil, err
	}
	s.grantsRevoked(ctx, actor, o, member, ch)
	return ch, nil
}

// grantsRevoked reports the trusted publishers and tokens a member change
// took away, each as its own event, as when they are removed one by one.
func (s *Service) grantsRevoked(ctx context.Context, actor, org, member *Account, ch *MemberChange) {
	for i := range ch.RemovedTrustedPublishers {
		p := &ch.RemovedTrustedPublishers[i]
		s.emit(ctx, Event{Action: ActionTrustedPublisherRemove, Actor: actor.Username, TrustedPublisherID: p.ID,
			Message: fmt.Sprintf("%s removed %s of %s, which %s made, with %s's owner role", actor.Username, describeTrustedPublisher(p), org.Username, member.Username, member.Username)})
	}
	for _, id := range ch.RevokedTokens {
		s.emit(ctx, Event{Action: ActionTokenRevoke, Actor: actor.Username, TokenID: id,
			Message: fmt.Sprintf("%s revoked %s's token %d, exchanged through a trusted publisher %s made", actor.Username, org.Username, id, member.Username)})
	}
}

func (s *Service) memberChange(ctx context.Context, actor *Account, maker *Token, org, username string) (*Account, *Account, error) {
	if err := Permit(maker, OpMembers, actor.Username, "", ""); err != nil {
		return nil, nil, err
	}
	o, err := s.orgAccount(ctx, org)
	if err != nil {
		return nil, nil, err
	}
	if err := s.Can(ctx, actor, ActMembers, o); err != nil {
		return nil, nil, err
	}
	if maker == nil { // the dashboard
		if err := s.CheckDashboardOrg(actor, o); err != nil {
			return nil, nil, err
		}
	}
	member, err := s.AccountByUsername(ctx, username)
	if IsCode(err, NotFound) {
		return nil, nil, Errorf(NotFound, "no user %s", clip.Text(username, 40))
	}
	if err != nil {
		return nil, nil, err
	}
	if member.IsOrg() {
		return nil, nil, Errorf(Invalid, "%s is an organisation; members are users", member.Username)
	}
	return o, member, nil
}

// checkUser refuses an organisation where only a user may act: log in,
// hold keys or tokens, create organisations.
func checkUser(acct *Account) error {
	if acct.IsOrg() {
		return &Error{Code: Forbidden, Reason: "organisation",
			Message: acct.Username + " is an organisation: it cannot log in or hold tokens or keys; its members act for it"}
	}
	return nil
}

// resolveOwner answers the namespace a publish goes to: ownerName ("" for
// the actor's own) and, when name is of the form owner/pack, its owner
// part, which must agree. It answers the pack part of name too.
func (s *Service) resolveOwner(ctx context.Context, actor *Account, ownerName, name string) (*Account, string, error) {
	ownerName = strings.ToLower(strings.TrimSpace(ownerName))
	if len(ownerName) > 64 {
		return nil, "", Errorf(Invalid, "owner must be a user's or an organisation's name, at most 39 characters")
	}
	// A name that is not printable text is refused as such, before it
	// could name a namespace.
	if err := checkLabel("name", name, 200, false); err != nil {
		return nil, "", err
	}
	if o, pack, ok := strings.Cut(name, "/"); ok {
		o = strings.ToLower(strings.TrimSpace(o))
		if ownerName != "" && ownerName != o {
			return nil, "", Errorf(Invalid, "owner %q and the owner part of name %q differ; give one of them", clip.Text(ownerName, 40), clip.Text(name, 40))
		}
		ownerName, name = o, pack
		if strings.TrimSpace(name) == "" {
			return nil, "", Errorf(Invalid, "name %q has no pack after the owner: use owner/pack", clip.Text(o+"/", 40))
		}
	}
	if ownerName == "" || ownerName == actor.Username {
		return actor, name, nil
	}
	owner, err := s.AccountByUsername(ctx, ownerName)
	if IsCode(err, NotFound) {
		return nil, "", Errorf(NotFound, "no user or organisation %s to publish into", clip.Text(ownerName, 40))
	}
	if err != nil {
		return nil, "", err
	}
	if err := s.Can(ctx, actor, ActPublish, owner); err != nil {
		return nil, "", err
	}
	return owner, name, nil
}
