package registry

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/pact-registry/pact/pkg/clip"
	"github.com/pact-registry/pact/pkg/translog"
)

// Webhooks (docs/protocol.md, Webhooks): an owner's hook receives a signed
// POST for each event of its packs it asked for. The deliveries are queued
// by the domain in the transaction of the event (appendEntry), delivered at
// least once by a worker (server/webhook) that claims them from the
// database, and retried with backoff for at least HookRetryFor. The body,
// with the log entry and its inclusion proof, is made when it is sent
// (HookPayload), against the checkpoint of that moment.

// The events a hook may ask for.
const (
	HookPublish   = "publish"
	HookYank      = "yank"
	HookUnyank    = "unyank"
	HookDeprecate = "deprecate"
	HookKey       = "key"
	HookMember    = "member"
	HookRelease   = "release"
)

// HookEvents are every event, in the order lists show them.
var HookEvents = []string{HookPublish, HookYank, HookUnyank, HookDeprecate, HookKey, HookMember, HookRelease}

// packageEvents are the events of one pack: a hook limited to a package
// may ask only for these.
var packageEvents = []string{HookPublish, HookYank, HookUnyank, HookDeprecate, HookRelease}

// Bounds of hooks and of their deliveries.
const (
	// MaxHooksPerOwner bounds the hooks of one namespace (a user's or an
	// organisation's).
	MaxHooksPerOwner = 20
	// MaxHooksPerUser bounds the hooks one user makes, in her namespace
	// and in every organisation's she owns, together: a hook counts
	// against the user who made it (Hook.CreatedBy) until it is deleted,
	// so 50 organisations do not make 1,000 hooks.
	MaxHooksPerUser     = 50
	MaxHookURLLength    = 2000
	MinHookSecretLength = 16
	MaxHookSecretLength = 256
	MaxHookEventInputs  = 16
	// HookDeliveriesKept is how many deliveries a hook's list keeps: the
	// finished ones beyond the newest HookDeliveriesKept are deleted.
	HookDeliveriesKept = 50
	// HookRetryFor is how long a delivery is retried: an attempt that
	// fails this long after the event (or a redelivery) gives up.
	HookRetryFor = 24 * time.Hour
	// HookFirstRetry is the wait after the first failure; each further
	// failure doubles it, up to HookMaxRetry.
	HookFirstRetry = 10 * time.Second
	HookMaxRetry   = time.Hour
	// HookDisableAfter: a hook whose every attempt failed for this long is
	// disabled, with a note its owner sees in the dashboard.
	HookDisableAfter = 72 * time.Hour
	// MaxHookAnswerBytes is as much of a receiver's answer as is read.
	MaxHookAnswerBytes = 64 << 10
	// DefaultHookTimeout bounds one delivery: connecting, sending and
	// reading the answer.
	DefaultHookTimeout = 10 * time.Second
	// DefaultHookDeliveriesPerUser is how many deliveries of the hooks one
	// user made may be under way at once, across every replica: a user's
	// slow receivers hold her share of the workers, never the others'.
	DefaultHookDeliveriesPerUser = 2
	// HookSlowStreak: a hook whose last HookSlowStreak answers each took
	// at least half of the timeout (or did not come) gets half the
	// timeout, until it answers within that. A receiver that keeps
	// answering just under the timeout then fails, is retried with
	// backoff, and is disabled after HookDisableAfter, instead of holding
	// a worker for the whole timeout each delivery for ever.
	HookSlowStreak = 3
)

// The states of a delivery.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// Hook is one webhook of an owner.
type Hook struct {
	ID      int64
	OwnerID int64
	Owner   string // the owner's username, as read
	// Package limits the hook to one of the owner's packs; "" for all.
	Package   string
	URL       string
	Secret    string
	Events    []string // in HookEvents' order
	CreatedBy int64
	CreatedAt time.Time
	// FailingSince is the first failed attempt since the last success;
	// nil while the hook is well.
	FailingSince *time.Time
	// DisabledAt is when the hook was disabled for failing too long, with
	// DisabledNote saying why; a disabled hook gets no deliveries.
	DisabledAt   *time.Time
	DisabledNote string
	// SlowAnswers counts the hook's latest attempts in a row that were
	// slow (HookOutcome.Slow); from HookSlowStreak on, its deliveries get
	// the shortened timeout (Timeout).
	SlowAnswers int
}

// Timeout is how long a delivery to h may take when the deliverer's
// timeout is full: half of it after HookSlowStreak slow answers in a row.
// Shortened says so.
func (h *Hook) Timeout(full time.Duration) (timeout time.Duration, shortened bool) {
	if h.SlowAnswers >= HookSlowStreak {
		return full / 2, true
	}
	return full, false
}

// HookEvent is what a delivery tells of a change: its event, the kind of
// its log entry (a deprecation's is the pack-state entry that records it),
// and what it concerns.
type HookEvent struct {
	Event, Kind             string
	Owner, Package, Version string
	// Message is a deprecation's message ("" for un-deprecating).
	Message string
	// At is when it happened, by the Service's clock: its deliveries are
	// queued then.
	At time.Time
}

// HookDelivery is one event queued for one hook, and how its attempts
// went.
type HookDelivery struct {
	ID, HookID int64
	HookEvent
	LogIndex      *int64 // nil only for a deprecation queued before pack-state entries
	CreatedAt     time.Time
	State         string
	Attempts      int
	NextAttemptAt time.Time
	GiveUpAt      time.Time
	LastAttemptAt *time.Time
	LastStatus    int // the receiver's HTTP status; 0 when none came
	LastDuration  time.Duration
	LastError     string
}

// HookClaim is a delivery a worker holds until its lease ends, with its
// hook.
type HookClaim struct {
	Delivery HookDelivery
	Hook     Hook
}

// HookAttempt is the outcome of one attempt as the store records it: the
// delivery's new state, and the hook's (FailingSince; a DisableNote
// disables it and fails its pending deliveries).
type HookAttempt struct {
	DeliveryID, HookID int64
	At                 time.Time
	Status             int
	Duration           time.Duration
	Error              string
	State              string
	NextAttemptAt      time.Time
	FailingSince       *time.Time
	DisableNote        string
	// SlowAnswers is the hook's new count of slow answers in a row.
	SlowAnswers int
}

// appendEntry appends entry to the log in tx (versionID, when not 0, is
// the version whose log index it is) and queues, with it, the deliveries
// of its event (hookEventOf) to the hooks that hear it: every change that
// appends an entry goes through here, so every event that commits has its
// deliveries, and none that does not. It answers the entry's index.
func appendEntry(tx Tx, entry *translog.Entry, versionID int64) (int64, error) {
	index, err := tx.AppendLog(entry, versionID)
	if err != nil {
		return 0, err
	}
	if ev, ok := hookEventOf(entry); ok {
		err = queueHooks(tx, ev, &index)
	}
	return index, err
}

// queueHooks queues in tx a delivery of ev, whose log entry is at index,
// for each hook of ev's owner that hears it (hookMatches), in the order
// the hooks were made. A delivery is first tried when the event happened
// and given up HookRetryFor later.
func queueHooks(tx Tx, ev HookEvent, index *int64) error {
	hooks, err := tx.HooksOf(ev.Owner)
	if err != nil {
		return err
	}
	for i := range hooks {
		h := &hooks[i]
		if !hookMatches(h, ev) {
			continue
		}
		d := &HookDelivery{HookID: h.ID, HookEvent: ev, LogIndex: index, CreatedAt: ev.At, State: DeliveryPending,
			NextAttemptAt: ev.At, GiveUpAt: ev.At.Add(HookRetryFor)}
		if err := tx.InsertDelivery(d); err != nil {
			return err
		}
	}
	return nil
}

// hookEventOf answers the hook event of a log entry; ok is false for
// entries no hook receives (trusted publishers, settings, package states).
func hookEventOf(e *translog.Entry) (HookEvent, bool) {
	ev := HookEvent{Kind: e.Kind, Owner: e.Get("owner"), Package: e.Get("pack"), Version: e.Get("version"), At: e.Time}
	switch e.Kind {
	case translog.KindPublish:
		ev.Event = HookPublish
	case translog.KindYank:
		ev.Event = HookYank
	case translog.KindUnyank:
		ev.Event = HookUnyank
	case translog.KindRelease:
		ev.Event = HookRelease
	case translog.KindKeyAdd, translog.KindKeyRemove:
		ev.Event = HookKey
	case translog.KindMember, translog.KindMemberRemove:
		ev.Event = HookMember
	default:
		return HookEvent{}, false
	}
	return ev, ev.Owner != ""
}

// deprecationEvent is the hook event of owner/pack deprecated with message
// ("" un-deprecates); the log records it in the package's pack-state entry,
// which the delivery carries.
func deprecationEvent(owner, pack, message string, at time.Time) HookEvent {
	return HookEvent{Event: HookDeprecate, Kind: translog.KindPackState, Owner: owner, Package: pack, Message: message, At: at}
}

func hookMatches(h *Hook, ev HookEvent) bool {
	if h.DisabledAt != nil || !strings.EqualFold(h.Owner, ev.Owner) || !slices.Contains(h.Events, ev.Event) {
		return false
	}
	return h.Package == "" || h.Package == ev.Package
}

// HookStore keeps hooks and their queue of deliveries. The deliveries of
// an event are queued by the domain's change that records it, in its
// transaction (appendEntry).
type HookStore interface {
	// HookByID finds a hook; NotFound when there is none.
	HookByID(ctx context.Context, id int64) (*Hook, error)
	// ListHooks lists an owner's hooks, oldest first.
	ListHooks(ctx context.Context, ownerID int64) ([]Hook, error)
	// DeleteHook deletes a hook and its deliveries; NotFound when there
	// is none.
	DeleteHook(ctx context.Context, id int64) error
	// ListHookDeliveries lists a hook's deliveries, newest first, at most
	// limit.
	ListHookDeliveries(ctx context.Context, hookID int64, limit int) ([]HookDelivery, error)
	// RedeliverHook queues a hook's delivery again, pending from next
	// until giveUp, and answers it; NotFound when the hook has no such
	// delivery.
	RedeliverHook(ctx context.Context, hookID, deliveryID int64, next, giveUp time.Time) (*HookDelivery, error)
	// ClaimHookDeliveries takes up to limit pending deliveries due at now
	// whose log entry the log's tree holds (or that have none), by moving
	// their next attempt to leaseUntil, and answers them with their hooks.
	// A delivery claimed by one worker (of any replica) is not claimed by
	// another until its lease ends or its attempt is recorded; till then
	// it is in flight. The deliveries of the hooks one user made
	// (Hook.CreatedBy) in flight, across every replica, never pass
	// perUser; within that, the claim goes round the users: each user's
	// oldest due delivery before anyone's second, the users with fewer in
	// flight first.
	ClaimHookDeliveries(ctx context.Context, now, leaseUntil time.Time, limit, perUser int) ([]HookClaim, error)
	// PostponeHookDelivery moves a pending delivery's next attempt, not
	// counting an attempt.
	PostponeHookDelivery(ctx context.Context, deliveryID int64, next time.Time) error
	// FinishHookDelivery records an attempt (see HookAttempt) and deletes
	// the hook's finished deliveries beyond the newest keep.
	FinishHookDelivery(ctx context.Context, a HookAttempt, keep int) error
}

// HookSpec is a hook as a client asks for it.
type HookSpec struct {
	Owner, Package, URL, Secret string
	Events                      []string
}

// CreateHook makes a hook for spec.Owner (actor's own namespace when "")
// as actor, with maker the request's token (nil from the dashboard).
func (s *Service) CreateHook(ctx context.Context, actor *Account, maker *Token, spec HookSpec) (*Hook, error) {
	owner, err := s.hookOwner(ctx, actor, spec.Owner)
	if err != nil {
		return nil, err
	}
	pack := strings.ToLower(strings.TrimSpace(spec.Package))
	if pack != "" && (len(pack) > 64 || !slugLike(pack)) {
		return nil, Errorf(Invalid, "package %q is not a pack's name: a-z, 0-9 and '-', at most 64 characters", clip.Text(spec.Package, 40))
	}
	if err := Permit(maker, OpHooks, actor.Username, owner.Username, cmp.Or(pack, EveryPack)); err != nil {
		return nil, err
	}
	events, err := parseHookEvents(spec.Events, pack != "")
	if err != nil {
		return nil, err
	}
	if n := len(spec.Secret); n < MinHookSecretLength || n > MaxHookSecretLength {
		return nil, Errorf(Invalid, "secret must be %d to %d bytes, got %d", MinHookSecretLength, MaxHookSecretLength, n)
	}
	for _, r := range spec.Secret {
		if r < 0x21 || r > 0x7e {
			return nil, Errorf(Invalid, "secret must be printable ASCII without spaces")
		}
	}
	u, err := s.checkHookURL(ctx, spec.URL)
	if err != nil {
		return nil, err
	}
	h := &Hook{OwnerID: owner.ID, Owner: owner.Username, Package: pack, URL: u, Secret: spec.Secret, Events: events,
		CreatedBy: actor.ID, CreatedAt: s.now()}
	if err := StoreHook(ctx, s.store, h); err != nil {
		return nil, err
	}
	s.emit(ctx, Event{Action: ActionHookAdd, Actor: actor.Username, HookID: h.ID,
		Message: fmt.Sprintf("%s added webhook %d of %s (%s) to %s", actor.Username, h.ID, hookScope(h), strings.Join(h.Events, ", "), h.URL)})
	return h, nil
}

// StoreHook stores h through st and sets h.ID, unless its owner has
// MaxHooksPerOwner hooks already, or its maker (h.CreatedBy) has made
// MaxHooksPerUser hooks that still exist, in any namespace (Conflict);
// NotFound when either account does not exist. The transaction holds the
// rows of the owner and of the maker, in the order of their ids, before it
// counts: creations at once, on any replica, count in turn.
func StoreHook(ctx context.Context, st Transactor, h *Hook) error {
	return st.Tx(ctx, func(tx Tx) error {
		for _, id := range []int64{min(h.OwnerID, h.CreatedBy), max(h.OwnerID, h.CreatedBy)} {
			if err := accountThere(tx.LockAccount, id); err != nil {
				return err
			}
		}
		n, err := tx.CountHooksOf(h.OwnerID)
		if err != nil {
			return err
		}
		if n >= MaxHooksPerOwner {
			return Errorf(Conflict, "%s has %d hooks already, the most an owner may have; remove one first", h.Owner, n)
		}
		if n, err = tx.CountHooksMadeBy(h.CreatedBy); err != nil {
			return err
		}
		if n >= MaxHooksPerUser {
			return Errorf(Conflict, "you have made %d hooks, in your namespace and your organisations', the most one user may; remove one first", n)
		}
		return tx.InsertHook(h)
	})
}

// hookScope is what a hook hears: owner or owner/pack.
func hookScope(h *Hook) string {
	if h.Package == "" {
		return h.Owner
	}
	return h.Owner + "/" + h.Package
}

// ListHooks lists the hooks of owner (actor's own when "") that actor
// manages with maker, the request's token (nil from the dashboard): one
// limited to packs sees only the hooks of those packs.
func (s *Service) ListHooks(ctx context.Context, actor *Account, maker *Token, owner string) ([]Hook, error) {
	if err := Permit(maker, OpHooks, actor.Username, owner, ""); err != nil {
		return nil, err
	}
	o, err := s.hookOwner(ctx, actor, owner)
	if err != nil {
		return nil, err
	}
	hooks, err := s.store.ListHooks(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(hooks, func(h Hook) bool {
		return Permit(maker, OpHooks, actor.Username, o.Username, cmp.Or(h.Package, EveryPack)) != nil
	}), nil
}

// DeleteHook deletes hook id, which actor must manage.
func (s *Service) DeleteHook(ctx context.Context, actor *Account, maker *Token, id int64) error {
	h, err := s.managedHook(ctx, actor, maker, id)
	if err != nil {
		return err
	}
	if err := s.store.DeleteHook(ctx, h.ID); err != nil {
		return err
	}
	s.emit(ctx, Event{Action: ActionHookRemove, Actor: actor.Username, HookID: h.ID,
		Message: fmt.Sprintf("%s removed webhook %d of %s, to %s", actor.Username, h.ID, hookScope(h), h.URL)})
	return nil
}

// HookDeliveries lists the newest deliveries of hook id, which actor must
// manage with maker.
func (s *Service) HookDeliveries(ctx context.Context, actor *Account, maker *Token, id int64) (*Hook, []HookDelivery, error) {
	h, err := s.managedHook(ctx, actor, maker, id)
	if err != nil {
		return nil, nil, err
	}
	list, err := s.store.ListHookDeliveries(ctx, h.ID, HookDeliveriesKept)
	return h, list, err
}

// Redeliver queues delivery of hook id again, to be tried at once and
// retried for HookRetryFor. A disabled hook is refused: delete it and add
// it again once its receiver works.
func (s *Service) Redeliver(ctx context.Context, actor *Account, maker *Token, id, delivery int64) (*HookDelivery, error) {
	h, err := s.managedHook(ctx, actor, maker, id)
	if err != nil {
		return nil, err
	}
	if h.DisabledAt != nil {
		return nil, Errorf(Conflict, "hook %d is disabled (%s); delete it and add it again once its receiver answers", h.ID, h.DisabledNote)
	}
	now := s.now()
	return s.store.RedeliverHook(ctx, h.ID, delivery, now, now.Add(HookRetryFor))
}

// managedHook finds hook id when actor manages its owner's hooks and maker
// (nil from the dashboard) reaches the hook's packs; NotFound otherwise,
// so the hooks of others are not told apart from missing ones.
func (s *Service) managedHook(ctx context.Context, actor *Account, maker *Token, id int64) (*Hook, error) {
	h, err := s.store.HookByID(ctx, id)
	if err != nil {
		return nil, err
	}
	owner, err := s.store.AccountByID(ctx, h.OwnerID)
	if err != nil {
		return nil, err
	}
	if err := Permit(maker, OpHooks, actor.Username, owner.Username, cmp.Or(h.Package, EveryPack)); err != nil {
		return nil, Errorf(NotFound, "no hook %d that this token manages: %s", id, ErrorMessage(err))
	}
	if err := s.Can(ctx, actor, ActHooks, owner); err != nil {
		return nil, Errorf(NotFound, "no hook %d that you manage", id)
	}
	return h, nil
}

// hookOwner answers the namespace named owner ("" or actor's own name:
// actor's), whose hooks actor must manage: its own, or an organisation's
// it owns.
func (s *Service) hookOwner(ctx context.Context, actor *Account, owner string) (*Account, error) {
	owner = strings.ToLower(strings.TrimSpace(owner))
	if owner == "" || owner == actor.Username {
		return actor, nil
	}
	if len(owner) > 64 {
		return nil, Errorf(Invalid, "owner must be a user's or an organisation's name")
	}
	o, err := s.AccountByUsername(ctx, owner)
	if IsCode(err, NotFound) {
		return nil, Errorf(NotFound, "no user or organisation %s", clip.Text(owner, 40))
	}
	if err != nil {
		return nil, err
	}
	if err := s.Can(ctx, actor, ActHooks, o); err != nil {
		return nil, err
	}
	return o, nil
}

func parseHookEvents(names []string, onePack bool) ([]string, error) {
	if len(names) == 0 {
		return nil, Errorf(Invalid, "events must name at least one of %s", strings.Join(HookEvents, ", "))
	}
	if len(names) > MaxHookEventInputs {
		return nil, Errorf(Invalid, "events must list at most %d entries", MaxHookEventInputs)
	}
	seen := map[string]bool{}
	for _, n := range names {
		e := strings.ToLower(strings.TrimSpace(n))
		if !slices.Contains(HookEvents, e) {
			return nil, Errorf(Invalid, "event %q is not known: use %s", clip.Text(n, 40), strings.Join(HookEvents, ", "))
		}
		if onePack && !slices.Contains(packageEvents, e) {
			return nil, Errorf(Invalid, "a hook of one package receives only %s; %q concerns the whole owner", strings.Join(packageEvents, ", "), e)
		}
		seen[e] = true
	}
	var out []string
	for _, e := range HookEvents {
		if seen[e] {
			out = append(out, e)
		}
	}
	return out, nil
}

// checkHookURL checks a hook's URL: http or https, a host, no user or
// password, at most MaxHookURLLength characters, and (unless private
// addresses are allowed) a host whose every address is public
// (CheckHookAddress). The worker checks again the address it dials.
func (s *Service) checkHookURL(ctx context.Context, raw string) (string, error) {
	if len(raw) > MaxHookURLLength {
		return "", Errorf(Invalid, "url must be at most %d characters", MaxHookURLLength)
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return "", Errorf(Invalid, "url must be an http:// or https:// URL with a host, such as https://ci.example.com/pact-hook")
	}
	if u.User != nil {
		return "", Errorf(Invalid, "url must not hold a user name or password: the secret authenticates the deliveries")
	}
	if u.Fragment != "" {
		return "", Errorf(Invalid, "url must not hold a #fragment")
	}
	if s.hooks.allowPrivate {
		return u.String(), nil
	}
	// One answer whether the host does not resolve or resolves to an
	// address hooks may not reach, naming neither the addresses nor the
	// resolver: a caller must not learn from it what names inside the
	// registry's network stand for.
	host := u.Hostname()
	notPublic := Errorf(Invalid, "url's host %s is not public: it must resolve, and only to public addresses (%s)", clip.Text(host, 80), hookAddressRule)
	addrs, err := s.hooks.resolve(ctx, host)
	if err != nil || len(addrs) == 0 {
		return "", notPublic
	}
	for _, a := range addrs {
		if err := s.CheckHookAddress(a); err != nil {
			return "", notPublic
		}
	}
	return u.String(), nil
}

// hookSettings are the Service's settings of deliveries.
type hookSettings struct {
	allowPrivate bool
	resolve      func(ctx context.Context, host string) ([]netip.Addr, error)
}

func resolveHost(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// hookAddressRule says which addresses hooks may not reach.
const hookAddressRule = "loopback, private, link-local and other addresses that are not public are refused, as pactd serve runs without --webhook-allow-private"

// ErrHookAddress is the error of a delivery to an address hooks may not
// reach. It names no address: the deliverer records it where the hook's
// owner reads it.
var ErrHookAddress = errors.New("the receiver's host is not public: " + hookAddressRule)

// nonPublic are prefixes no hook may reach besides those netip classifies:
// the unspecified network, shared address space (CGNAT), IETF protocol
// assignments, benchmarking, reserved, and the IPv6 prefixes that embed an
// IPv4 address (IPv4-compatible ::a.b.c.d, IPv4-translated
// ::ffff:0:a.b.c.d, NAT64, 6to4), which could reach a private one. (The
// IPv4-mapped ::ffff:a.b.c.d is checked as the IPv4 address it maps.)
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("::/96"),
	netip.MustParsePrefix("::ffff:0:0:0/96"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2002::/16"),
}

// HookSender is what a webhook deliverer (server/webhook) asks of the
// domain: the deliveries due, each one's body, and where an attempt ends.
// The Service is one; the deliverer knows nothing else of it.
type HookSender interface {
	// CheckHookAddress refuses an address a hook may not reach.
	CheckHookAddress(a netip.Addr) error
	ClaimHookDeliveries(ctx context.Context, lease time.Duration, limit, perUser int) ([]HookClaim, error)
	PostponeHookDelivery(ctx context.Context, c *HookClaim, wait time.Duration) error
	FinishHookDelivery(ctx context.Context, c *HookClaim, o HookOutcome) (disabled string, err error)
	HookPayload(ctx context.Context, d *HookDelivery) (entry, proof string, err error)
}

var _ HookSender = (*Service)(nil)

// CheckHookAddress refuses an address a delivery may not reach, unless
// pactd runs with --webhook-allow-private: loopback, private (RFC 1918,
// IPv6 ULA), link-local (169.254.169.254, the metadata address of clouds,
// among them), multicast, unspecified and the prefixes of nonPublic.
func (s *Service) CheckHookAddress(a netip.Addr) error {
	if s.hooks.allowPrivate {
		return nil
	}
	a = a.Unmap()
	if !a.IsValid() || !a.IsGlobalUnicast() || a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() {
		return ErrHookAddress
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return ErrHookAddress
		}
	}
	return nil
}

// ClaimHookDeliveries takes up to limit due deliveries for lease, at most
// perUser of the hooks of one user in flight (HookStore): until the lease
// ends, no other worker takes them; a worker that dies meanwhile leaves
// them to be taken again after it.
func (s *Service) ClaimHookDeliveries(ctx context.Context, lease time.Duration, limit, perUser int) ([]HookClaim, error) {
	now := s.now()
	return s.store.ClaimHookDeliveries(ctx, now, now.Add(lease), limit, perUser)
}

// PostponeHookDelivery moves a claimed delivery whose body cannot be made
// yet (its entry not yet in the checkpoint served) to a moment later.
func (s *Service) PostponeHookDelivery(ctx context.Context, c *HookClaim, wait time.Duration) error {
	return s.store.PostponeHookDelivery(ctx, c.Delivery.ID, s.now().Add(wait))
}

// HookOutcome is what one attempt got: the receiver's status (0 when no
// answer came), how long it took, and the error (empty on success: a 2xx).
// Slow is true when it took at least half of the full timeout, or no
// answer came within the timeout.
type HookOutcome struct {
	Status   int
	Duration time.Duration
	Error    string
	Slow     bool
}

// FinishHookDelivery records an attempt at c: delivered on a 2xx answer;
// else retried after HookFirstRetry, doubling to HookMaxRetry, until
// GiveUpAt, then failed. A slow attempt adds one to the hook's slow
// answers in a row; any other sets them back to none. A hook whose attempts have all failed for
// HookDisableAfter is disabled with a note, which it answers ("" when
// the hook stays enabled).
func (s *Service) FinishHookDelivery(ctx context.Context, c *HookClaim, o HookOutcome) (disabled string, err error) {
	now := s.now()
	a := HookAttempt{DeliveryID: c.Delivery.ID, HookID: c.Hook.ID, At: now, Status: o.Status, Duration: o.Duration, Error: clip.Text(o.Error, 500)}
	if o.Slow {
		a.SlowAnswers = c.Hook.SlowAnswers + 1
	}
	if o.Status >= 200 && o.Status < 300 && o.Error == "" {
		a.State = DeliveryDelivered
		a.NextAttemptAt = now
		return "", s.store.FinishHookDelivery(ctx, a, HookDeliveriesKept)
	}
	if a.Error == "" {
		a.Error = fmt.Sprintf("the receiver answered %d", o.Status)
	}
	a.State, a.NextAttemptAt = DeliveryPending, now.Add(HookBackoff(c.Delivery.Attempts+1))
	if !now.Before(c.Delivery.GiveUpAt) {
		a.State, a.NextAttemptAt = DeliveryFailed, now
	}
	since := now
	if c.Hook.FailingSince != nil {
		since = *c.Hook.FailingSince
	}
	a.FailingSince = &since
	if now.Sub(since) >= HookDisableAfter {
		a.DisableNote = fmt.Sprintf("disabled at %s: every delivery failed since %s; the last: %s",
			now.Format(time.RFC3339), since.Format(time.RFC3339), a.Error)
	}
	return a.DisableNote, s.store.FinishHookDelivery(ctx, a, HookDeliveriesKept)
}

// HookBackoff is the wait after the attempts-th failed attempt.
func HookBackoff(attempts int) time.Duration {
	d := HookFirstRetry
	for i := 1; i < attempts && d < HookMaxRetry; i++ {
		d *= 2
	}
	return min(d, HookMaxRetry)
}

// HookPayload is what a delivery's body holds besides its identity: the
// entry's text and its offline proof (LogProof) against the checkpoint
// served now. NotYet when that checkpoint does not cover the entry yet.
func (s *Service) HookPayload(ctx context.Context, d *HookDelivery) (entry, proof string, err error) {
	if d.LogIndex == nil {
		return "", "", nil
	}
	p, err := s.LogProof(ctx, *d.LogIndex)
	if IsCode(err, NotFound) {
		// The delivery was claimed because the tree holds its entry
		// (ClaimHookDeliveries), so a checkpoint covering it is stored:
		// the copy this process keeps may be older (another replica
		// signed, or this one signed a moment ago). Read the store's.
		s.checkpoint.drop()
		s.witnessed.drop()
		p, err = s.LogProof(ctx, *d.LogIndex)
	}
	if IsCode(err, NotFound) {
		return "", "", ErrHookNotYet
	}
	if err != nil {
		return "", "", err
	}
	entries, err := s.store.LogEntries(ctx, *d.LogIndex, *d.LogIndex+1)
	if err != nil {
		return "", "", err
	}
	return string(entries[0]), string(p), nil
}

// ErrHookNotYet: the checkpoint served does not cover a delivery's entry
// yet.
var ErrHookNotYet = errors.New("the log's checkpoint does not cover the entry yet")
