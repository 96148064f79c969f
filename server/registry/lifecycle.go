package registry

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/pact-registry/pact/pkg/translog"
)

// The lifecycle of a package after publishing (docs/protocol.md, Yanking,
// Deprecating a package and Trusted publishing only): its owner may yank a
// version, withdrawing it from "latest" and from lists while its exact
// address keeps serving it, undo that, deprecate the whole package with a
// message, and let only CI jobs publish it. YankVersion, UnyankVersion,
// DeprecatePackage and SetTrustedPublishingOnly are the only ways to do so,
// and each is one transaction of the store.

// LifecycleStore keeps yanks, deprecations and package settings.
type LifecycleStore interface {
	// SetYanked yanks (c.Yanked, with c.Reason) or un-yanks one version of
	// c.PackageID and, in the same transaction, makes the package's latest
	// version the one c.LatestOf chooses among the versions not yanked
	// (none: Version and SHA256 "", LatestVersionID 0; name, description
	// and scheme stay), and appends the entry c.Entry answers, if any,
	// then the one c.State answers from the package's state after.
	// Yanking a yanked version keeps its YankedAt and replaces its reason.
	// NotFound when the package has no such version.
	SetYanked(ctx context.Context, c YankChange) (*Package, *Version, error)
	// SetDeprecated sets the deprecation message of c.PackageID to
	// c.Message ("" undoes it) and, in the same transaction, appends the
	// entry c.State answers from the message before and the package's
	// state after, if any. NotFound when the package does not exist.
	// The webhooks of a change that is logged (HookRouting.Deprecation)
	// are queued at c.At, in its transaction.
	SetDeprecated(ctx context.Context, c DeprecationChange) (*Package, error)
	// SetTrustedPublishingOnly turns the trusted-publishing-only setting
	// of c.PackageID on (c.Only) or off and, in the same transaction,
	// appends the entry c.Entry answers from the setting before, if any.
	// NotFound when the package does not exist.
	SetTrustedPublishingOnly(ctx context.Context, c TrustedPublishingChange) (*Package, error)
}

// TrustedPublishingChange turns a package's trusted-publishing-only
// setting on or off, with the entry the domain logs of it
// (NewTrustedPublishingChange).
type TrustedPublishingChange struct {
	PackageID int64
	Only      bool
	// Entry answers the change's log entry from the setting before, as
	// the store's transaction finds it; nil when nothing changes.
	Entry func(was bool) *translog.Entry
}

// NewTrustedPublishingChange is the change by which by turns p's
// trusted-publishing-only setting on (only) or off at at. Only a change is
// logged: setting it to what it is changes nothing a reader can see.
func NewTrustedPublishingChange(p *Package, only bool, by string, at time.Time) TrustedPublishingChange {
	owner, pack := p.OwnerSlug, p.PackSlug
	return TrustedPublishingChange{PackageID: p.ID, Only: only,
		Entry: func(was bool) *translog.Entry {
			if was == only {
				return nil
			}
			return TrustedPublishingOnlyLogEntry(owner, pack, only, by, at)
		},
	}
}

// admitPublish is the rule PublishInput.Admit applies: a package whose
// owner set trusted publishing only takes a publish only with a token
// exchanged through a trusted publisher (viaCI); token and SSH-signed
// publishes are refused, naming the setting.
func admitPublish(viaCI bool) func(p *Package) error {
	return func(p *Package) error {
		if !p.TrustedPublishingOnly || viaCI {
			return nil
		}
		name := p.OwnerSlug + "/" + p.PackSlug
		return &Error{Code: Forbidden, Reason: "trusted_publishing_only",
			Message: name + " is set to trusted publishing only (trusted_publishing_only): only CI jobs of its trusted publishers publish it, " +
				"with the tokens they exchange; token and SSH-signed publishes are refused. Its owner turns this off on the dashboard (Trusted publishers)"}
	}
}

// YankChange is a yank or un-yank of one version, with what the store
// records with it as the domain decides (NewYankChange).
type YankChange struct {
	PackageID int64
	Version   string
	Yanked    bool   // false: un-yank
	Reason    string // of a yank
	At        time.Time
	// Entry answers the change's log entry from the version's state
	// before it, as the store's transaction finds it; nil when there is
	// nothing to log.
	Entry func(wasYanked bool, oldReason string) *translog.Entry
	// LatestOf picks the package's latest version among those not
	// yanked, given in publish order.
	LatestOf func(versions []string) int
	// State answers the pack-state entry appended after Entry (when
	// Entry answered one), from the package's state after the change.
	State func(st PackState) *translog.Entry
}

// DeprecationChange sets or clears a package's deprecation message, with
// the pack-state entry the domain logs of it (NewDeprecationChange).
type DeprecationChange struct {
	PackageID int64
	Message   string
	At        time.Time
	// State answers the change's pack-state entry from the message
	// before and the package's state after, as the store's transaction
	// finds them; nil when nothing changes.
	State func(was string, st PackState) *translog.Entry
}

// NewDeprecationChange is the change that deprecates p with message ("":
// undoes its deprecation) at at. Only a change is logged, in the
// package's pack-state entry: the deprecation has no entry of its own.
func NewDeprecationChange(p *Package, message string, at time.Time) DeprecationChange {
	owner, pack := p.OwnerSlug, p.PackSlug
	return DeprecationChange{PackageID: p.ID, Message: message, At: at,
		State: func(was string, st PackState) *translog.Entry {
			if was == message {
				return nil
			}
			return PackStateLogEntry(owner, pack, st, at)
		},
	}
}

// NewYankChange is the change that yanks (yanked true, with reason) or
// un-yanks version of p at at. Only a change is logged: yanking a yanked
// version again with the same reason, or un-yanking one that is not
// yanked, changes nothing a reader can see. The latest is LatestOf's.
func NewYankChange(p *Package, version string, yanked bool, reason string, at time.Time) YankChange {
	owner, pack := p.OwnerSlug, p.PackSlug
	return YankChange{PackageID: p.ID, Version: version, Yanked: yanked, Reason: reason, At: at,
		Entry: func(wasYanked bool, oldReason string) *translog.Entry {
			if wasYanked == yanked && (!yanked || oldReason == reason) {
				return nil
			}
			return YankLogEntry(yanked, owner, pack, version, reason, at)
		},
		LatestOf: LatestOf,
		State:    func(st PackState) *translog.Entry { return PackStateLogEntry(owner, pack, st, at) },
	}
}

const (
	// MaxYankReason and MaxDeprecationMessage bound the owner's texts, in
	// characters. Both are one line: every page, header and terminal
	// shows them.
	MaxYankReason         = 200
	MaxDeprecationMessage = 500
)

// LatestOf returns the index of the latest of versions, given in publish
// order, by the rule of BecomesLatest; -1 when versions is empty.
func LatestOf(versions []string) int {
	latest := -1
	for i, v := range versions {
		if latest < 0 || BecomesLatest(versions[latest], v) {
			latest = i
		}
	}
	return latest
}

// YankVersion withdraws one version of owner/pack on behalf of accountID,
// which must own the package: the version is never the latest again until
// it is un-yanked, and is not offered in lists, but its exact address keeps
// serving it, marked as yanked. Yanking a yanked version succeeds and
// replaces its reason. It returns the package (with its latest version now)
// and the version.
func (s *Service) YankVersion(ctx context.Context, actor *Account, owner, pack, version, reason string) (*Package, *Version, error) {
	reason = strings.TrimSpace(reason)
	if err := checkLabel("reason", reason, MaxYankReason, false); err != nil {
		return nil, nil, err
	}
	p, err := s.ownedPackage(ctx, actor, owner, pack, ActYank, "yank versions of")
	if err != nil {
		return nil, nil, err
	}
	if err := checkYankTarget(version); err != nil {
		return nil, nil, err
	}
	pkg, v, err := s.store.SetYanked(ctx, NewYankChange(p, version, true, reason, s.now()))
	if err == nil && s.auditing() {
		msg := fmt.Sprintf("%s yanked %s %s", actor.Username, packName(actor.Username, p.OwnerSlug, p.PackSlug), v.Version)
		if reason != "" {
			msg += ": " + reason
		}
		s.emit(ctx, lifecycleEvent(ActionYank, actor.Username, p, v.Version, msg))
	}
	return pkg, v, err
}

// UnyankVersion undoes YankVersion: the version may be the latest again.
// Un-yanking a version that is not yanked succeeds and changes nothing.
func (s *Service) UnyankVersion(ctx context.Context, actor *Account, owner, pack, version string) (*Package, *Version, error) {
	p, err := s.ownedPackage(ctx, actor, owner, pack, ActYank, "un-yank versions of")
	if err != nil {
		return nil, nil, err
	}
	if err := checkYankTarget(version); err != nil {
		return nil, nil, err
	}
	pkg, v, err := s.store.SetYanked(ctx, NewYankChange(p, version, false, "", s.now()))
	if err == nil && s.auditing() {
		s.emit(ctx, lifecycleEvent(ActionUnyank, actor.Username, p, v.Version, fmt.Sprintf("%s un-yanked %s %s", actor.Username, packName(actor.Username, p.OwnerSlug, p.PackSlug), v.Version)))
	}
	return pkg, v, err
}

// DeprecatePackage sets the deprecation message of owner/pack on behalf of
// actor, who must own it or be an owner of its organisation; an empty message (after trimming spaces)
// undoes the deprecation.
func (s *Service) DeprecatePackage(ctx context.Context, actor *Account, owner, pack, message string) (*Package, error) {
	message = strings.TrimSpace(message)
	if err := checkLabel("message", message, MaxDeprecationMessage, false); err != nil {
		return nil, err
	}
	p, err := s.ownedPackage(ctx, actor, owner, pack, ActDeprecate, "deprecate")
	if err != nil {
		return nil, err
	}
	pkg, err := s.store.SetDeprecated(ctx, NewDeprecationChange(p, message, s.now()))
	if err == nil && s.auditing() {
		if message == "" {
			s.emit(ctx, lifecycleEvent(ActionUndeprecate, actor.Username, p, "", fmt.Sprintf("%s withdrew the deprecation of %s", actor.Username, packName(actor.Username, p.OwnerSlug, p.PackSlug))))
		} else {
			s.emit(ctx, lifecycleEvent(ActionDeprecate, actor.Username, p, "", fmt.Sprintf("%s deprecated %s: %s", actor.Username, packName(actor.Username, p.OwnerSlug, p.PackSlug), message)))
		}
	}
	return pkg, err
}

// SetTrustedPublishingOnly turns the trusted-publishing-only setting of
// owner/pack on (only) or off on behalf of actor, who must own the package
// or be an owner of its organisation (as for deprecating). token is the
// API token the request came with (nil from the dashboard). Turning it on
// is OpLock, which a token with the yank scope for the pack may do, but
// not one exchanged through a trusted publisher; turning it off is
// OpUnlock, which only a logged-in browser session may do: the lock is
// there for the day a token is stolen. Setting the value the package has
// succeeds and logs nothing.
func (s *Service) SetTrustedPublishingOnly(ctx context.Context, actor *Account, token *Token, owner, pack string, only bool) (*Package, error) {
	op := OpLock
	if !only {
		op = OpUnlock
	}
	if err := Permit(token, op, actor.Username, owner, pack); err != nil {
		return nil, err
	}
	p, err := s.ownedPackage(ctx, actor, owner, pack, ActSettings, "change the settings of")
	if err != nil {
		return nil, err
	}
	pkg, err := s.store.SetTrustedPublishingOnly(ctx, NewTrustedPublishingChange(p, only, actor.Username, s.now()))
	if err == nil && s.auditing() {
		name := packName(actor.Username, p.OwnerSlug, p.PackSlug)
		msg := fmt.Sprintf("%s set %s to trusted publishing only", actor.Username, name)
		if !only {
			msg = fmt.Sprintf("%s took %s off trusted publishing only", actor.Username, name)
		}
		s.emit(ctx, lifecycleEvent(ActionTrustedPublishingOnly, actor.Username, p, "", msg))
	}
	return pkg, err
}

// lifecycleEvent reports a change by the package's owner, the only one
// who may make it (ownedPackage).
func lifecycleEvent(action, actor string, p *Package, version, msg string) Event {
	return Event{Action: action, Actor: actor, Message: msg, Package: p.OwnerSlug + "/" + p.PackSlug, Version: version}
}

// ownedPackage finds owner/pack and checks that actor may do action to it
// (Can). An unknown package is NotFound for everyone; packages are
// public, so answering Forbidden to others reveals nothing.
func (s *Service) ownedPackage(ctx context.Context, actor *Account, owner, pack string, action Action, verb string) (*Package, error) {
	p, err := s.store.PackageBySlug(ctx, owner, pack)
	if err != nil {
		return nil, err
	}
	if p.OwnerID == actor.ID {
		return p, nil
	}
	ownerAcct, err := s.store.AccountByID(ctx, p.OwnerID)
	if err != nil {
		return nil, err
	}
	if err := s.Can(ctx, actor, action, ownerAcct); err != nil {
		if IsCode(err, Forbidden) && !ownerAcct.IsOrg() {
			// The message names the package and what was refused.
			return nil, Errorf(Forbidden, "only %s may %s %s/%s", p.OwnerSlug, verb, p.OwnerSlug, p.PackSlug)
		}
		return nil, err
	}
	return p, nil
}

// checkYankTarget refuses @latest: a yank names the version it withdraws,
// so that repeating it never withdraws another one.
func checkYankTarget(version string) error {
	if IsLatestAlias(version) {
		return Errorf(Invalid, "name the version exactly: @%s changes as versions are yanked", LatestAlias)
	}
	return nil
}
