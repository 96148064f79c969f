package registry

import (
	"context"
	"fmt"
	"strings"
)

// The audit trail (docs/operations.md, Audit lines): every change a user
// makes to what others can see or use (a publish, a yank or un-yank, a
// deprecation, an SSH key, an API token, a trusted publisher or a webhook
// added or removed) is reported once, by the method that made it and only after
// the store kept it, to Options.OnEvent. Reporting here rather than in the
// API and the dashboard means each change is reported however it was asked
// for, and from one place.

// Event is one change, in words and in fields.
type Event struct {
	// Action names the kind of change: one of the Action* constants.
	Action string
	// Actor is the username of the account that acted, or "operator"
	// when pactd's admin commands acted on the host.
	Actor string
	// Message is the whole change as a sentence, starting with the actor:
	// "alice published widget 1.2.0 (ssh SHA256:…)".
	Message string
	// The objects of the change; empty when they do not apply.
	Package            string // owner/pack
	Version            string
	TokenID            int64
	KeyFingerprint     string
	TrustedPublisherID int64
	HookID             int64
}

// The actions an Event reports.
const (
	ActionPublish                = "publish"
	ActionYank                   = "yank"
	ActionUnyank                 = "unyank"
	ActionDeprecate              = "deprecate"
	ActionUndeprecate            = "undeprecate"
	ActionKeyAdd                 = "key_add"
	ActionKeyRemove              = "key_remove"
	ActionTokenCreate            = "token_create"
	ActionTokenRevoke            = "token_revoke"
	ActionTokenExchange          = "token_exchange"
	ActionTrustedPublisherAdd    = "trusted_publisher_add"
	ActionTrustedPublisherRemove = "trusted_publisher_remove"
	ActionTrustedPublishingOnly  = "trusted_publishing_only"
	ActionHookAdd                = "hook_add"
	ActionHookRemove             = "hook_remove"
	// Passkeys (passkey.go): added, removed, the second factor turned on
	// or off (a user's own, or an organisation's requirement), and a
	// log-in with a recovery code.
	ActionPasskeyAdd      = "passkey_add"
	ActionPasskeyRemove   = "passkey_remove"
	ActionSecondFactor    = "second_factor"
	ActionRecoveryCodeUse = "recovery_code_use"
)

// OperatorActor is the Actor of changes made by pactd's admin commands.
const OperatorActor = "operator"

// auditing says whether anyone listens, so that the lookups an event needs
// (a username, a key's fingerprint) are made only then.
func (s *Service) auditing() bool { return s.onEvent != nil }

func (s *Service) emit(ctx context.Context, e Event) {
	if s.onEvent != nil {
		s.onEvent(ctx, e)
	}
}

// username names accountID for an event; a failed lookup (the change is
// stored already) names the account by its id instead.
func (s *Service) username(ctx context.Context, accountID int64) string {
	a, err := s.store.AccountByID(ctx, accountID)
	if err != nil {
		return fmt.Sprintf("account %d", accountID)
	}
	return a.Username
}

// describeToken is "token 12 (ci)".
func describeToken(t *Token) string {
	return fmt.Sprintf("token %d (%s)", t.ID, t.Name)
}

// publishEvent reports a new version; via says how the publisher proved
// who they are ("ssh SHA256:…", "token 12, ci"), "" when no credential
// was involved.
func publishEvent(actor string, pkg *Package, version, via string) Event {
	msg := fmt.Sprintf("%s published %s %s", actor, packName(actor, pkg.OwnerSlug, pkg.PackSlug), version)
	if via != "" {
		msg += " (" + via + ")"
	}
	return Event{Action: ActionPublish, Actor: actor, Message: msg,
		Package: pkg.OwnerSlug + "/" + pkg.PackSlug, Version: version}
}

// packName is the pack's slug alone when the actor owns it, as is said in
// conversation ("alice published widget"), else owner/pack.
func packName(actor, owner, pack string) string {
	if strings.EqualFold(actor, owner) {
		return pack
	}
	return owner + "/" + pack
}
