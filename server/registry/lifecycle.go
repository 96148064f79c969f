package registry

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// The lifecycle of a package after publishing (docs/protocol.md, Yanking,
// Deprecating a package and Trusted publishing only): its owner may yank a
// version, withdrawing it from "latest" and from lists while its exact
// address keeps serving it, undo that, deprecate the whole package with a
// message, and let only CI jobs publish it. YankVersion, UnyankVersion,
// DeprecatePackage and SetTrustedPublishingOnly are the only ways to do so,
// and each is one transaction of the store, run by the functions below.

// SetYanked yanks (yanked, with reason) or un-yanks version of p at at, in
// one transaction of st:
//
//   - the package's row is held first, as a publish holds it before it
//     compares versions: a concurrent publish of the package waits, then
//     compares with the latest chosen here;
//   - yanking a yanked version keeps its YankedAt and replaces its reason;
//   - the package's latest version becomes the one LatestOf picks among
//     the versions not yanked (none: Version and SHA256 "",
//     LatestVersionID 0; name, description and scheme stay);
//   - only a change is logged, with its entry (YankLogEntry) and then the
//     package's pack-state entry as the change leaves it: yanking a
//     yanked version again with the same reason, or un-yanking one that
//     is not yanked, changes nothing a reader can see.
//
// It answers the package (with its latest version now) and the version;
// NotFound when p is no package or has no such version.
func SetYanked(ctx context.Context, st Transactor, p *Package, version string, yanked bool, reason string, at time.Time) (pkg *Package, v *Version, err error) {
	err = st.Tx(ctx, func(tx Tx) (err error) {
		pkg, v, err = setYankedTx(tx, p, version, yanked, reason, at)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return pkg, v, nil
}

// setYankedTx is one run of SetYanked's transaction.
func setYankedTx(tx Tx, p *Package, version string, yanked bool, reason string, at time.Time) (*Package, *Version, error) {
	locked, err := tx.LockPackage(p.ID)
	if err != nil {
		return nil, nil, err
	}
	// The state before, as the transaction finds it: only a change is
	// logged.
	was, err := tx.VersionOf(p.ID, version)
	if err != nil {
		return nil, nil, err
	}
	if was == nil {
		return nil, nil, Errorf(NotFound, "no version %s of %s/%s", version, locked.OwnerSlug, locked.PackSlug)
	}
	if err := tx.SetYanked(was.ID, yanked, reason, at); err != nil {
		return nil, nil, err
	}
	candidates, err := tx.UnyankedVersions(p.ID)
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, len(candidates))
	for i, c := range candidates {
		names[i] = c.Version
	}
	var latest *Version
	if i := LatestOf(names); i >= 0 {
		latest = &candidates[i]
	}
	if err := tx.SetLatest(p.ID, latest); err != nil {
		return nil, nil, err
	}
	pkg, err := tx.PackageByID(p.ID)
	if err != nil {
		return nil, nil, err
	}
	if was.Yanked() != yanked || (yanked && was.YankReason != reason) {
		if _, err := appendEntry(tx, YankLogEntry(yanked, p.OwnerSlug, p.PackSlug, version, reason, at), 0); err != nil {
			return nil, nil, err
		}
		if _, err := appendPackState(tx, p.ID, p.OwnerSlug, p.PackSlug, at); err != nil {
			return nil, nil, err
		}
	}
	v, err := tx.VersionOf(p.ID, version)
	if err != nil {
		return nil, nil, err
	}
	return pkg, v, nil
}

// SetDeprecated sets the deprecation message of p to message ("" undoes
// it) at at, in one transaction of st. Only a change is logged, in the
// package's pack-state entry (the deprecation has no entry of its own),
// and the webhooks of the deprecation are queued with that entry. NotFound
// when p is no package.
func SetDeprecated(ctx context.Context, st Transactor, p *Package, message string, at time.Time) (pkg *Package, err error) {
	err = st.Tx(ctx, func(tx Tx) (err error) {
		pkg, err = setDeprecatedTx(tx, p, message, at)
		return err
	})
	if err != nil {
		return nil, err
	}
	return pkg, nil
}

// setDeprecatedTx is one run of SetDeprecated's transaction.
func setDeprecatedTx(tx Tx, p *Package, message string, at time.Time) (*Package, error) {
	// The message before, from the row the transaction holds, so the
	// entry logged is the change that was made.
	locked, err := tx.LockPackage(p.ID)
	if err != nil {
		return nil, err
	}
	if err := tx.SetDeprecated(p.ID, message); err != nil {
		return nil, err
	}
	if locked.Deprecated == message {
		return tx.PackageByID(p.ID)
	}
	index, err := appendPackState(tx, p.ID, p.OwnerSlug, p.PackSlug, at)
	if err != nil {
		return nil, err
	}
	pkg, err := tx.PackageByID(p.ID)
	if err != nil {
		return nil, err
	}
	return pkg, queueHooks(tx, deprecationEvent(pkg.OwnerSlug, pkg.PackSlug, message, at), &index)
}

// SetTrustedPublishingOnly turns p's trusted-publishing-only setting on
// (only) or off on behalf of by at at, in one transaction of st. Only a
// change is logged (TrustedPublishingOnlyLogEntry): setting it to what it
// is changes nothing a reader can see. NotFound when p is no package.
func SetTrustedPublishingOnly(ctx context.Context, st Transactor, p *Package, only bool, by string, at time.Time) (pkg *Package, err error) {
	err = st.Tx(ctx, func(tx Tx) error {
		// The setting before, from the row the transaction holds: a
		// concurrent change or publish of the package waits, so the
		// entry logged is the change that was made.
		locked, err := tx.LockPackage(p.ID)
		if err != nil {
			return err
		}
		if err := tx.SetTrustedPublishingOnly(p.ID, only); err != nil {
			return err
		}
		if pkg, err = tx.PackageByID(p.ID); err != nil {
			return err
		}
		if locked.TrustedPublishingOnly == only {
			return nil
		}
		_, err = appendEntry(tx, TrustedPublishingOnlyLogEntry(p.OwnerSlug, p.PackSlug, only, by, at), 0)
		return err
	})
	if err != nil {
		return nil, err
	}
	return pkg, nil
}

// admitPublish decides whether p takes a publish: a package whose owner
// set trusted publishing only takes one only with a token exchanged through
// a trusted publisher (viaCI); token and SSH-signed publishes are refused,
// naming the setting.
func admitPublish(p *Package, viaCI bool) error {
	if !p.TrustedPublishingOnly || viaCI {
		return nil
	}
	name := p.OwnerSlug + "/" + p.PackSlug
	return &Error{Code: Forbidden, Reason: "trusted_publishing_only",
		Message: name + " is set to trusted publishing only (trusted_publishing_only): only CI jobs of its trusted publishers publish it, " +
			"with the tokens they exchange; token and SSH-signed publishes are refused. Its owner turns this off on the dashboard (Trusted publishers)"}
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
	pkg, v, err := SetYanked(ctx, s.store, p, version, true, reason, s.now())
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
	pkg, v, err := SetYanked(ctx, s.store, p, version, false, "", s.now())
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
	pkg, err := SetDeprecated(ctx, s.store, p, message, s.now())
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
	pkg, err := SetTrustedPublishingOnly(ctx, s.store, p, only, actor.Username, s.now())
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
