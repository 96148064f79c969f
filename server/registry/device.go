package registry

import (
	"context"
	"crypto/rand"
	"net/netip"
	"strings"
	"time"
)

// Logging in the command line through the browser (docs/protocol.md,
// Logging in through the browser), RFC 8628's device authorization grant:
// pact login asks for a login and gets two codes, a device code it keeps
// and a short user code it shows; its user types the user code on the
// dashboard's /login/device, chooses what the token may do and approves
// (or denies); pact login polls with the device code until it receives the
// token, once. Only the SHA-256 of each code is stored, as for tokens and
// sessions.
const (
	// DeviceLoginLifetime is how long a login waits for its approval and
	// its collection.
	DeviceLoginLifetime = 10 * time.Minute
	// DevicePollInterval is the least time between two polls of one
	// login; a poll sooner is answered ErrSlowDown.
	DevicePollInterval = 5 * time.Second
	// MaxPendingDeviceLogins bounds the logins of the whole registry
	// waiting at once; beyond it a new one makes the oldest of the block
	// with the most waiting give way, so a flood from a few blocks cannot
	// keep anybody else from logging in. Creating them is rate-limited per
	// address too.
	MaxPendingDeviceLogins = 10_000
	// MaxPendingDeviceLoginsPerBlock bounds the logins waiting at once
	// from one address block (DeviceLoginBlock); beyond it a new one from
	// that block is refused (ErrDeviceLoginsBlockFull) until some expire.
	MaxPendingDeviceLoginsPerBlock = 100
	// DeviceLoginName is the name of the token a login makes when the
	// command line gives none.
	DeviceLoginName = "pact login"

	deviceCodeLength = 43 // base62 characters ≈ 256 bits
	// userCodeAlphabet has no vowels, so no code spells a word, and none
	// of 0/O, 1/I that people confuse (RFC 8628, section 6.1): 20 letters,
	// eight of them about 34.5 bits.
	userCodeAlphabet = "BCDFGHJKLMNPQRSTVWXZ"
	userCodeLength   = 8
)

// DeviceLogin is one login of the command line, from its request to its
// collection.
type DeviceLogin struct {
	ID         int64
	DeviceHash []byte // SHA-256 of the device code
	UserHash   []byte // SHA-256 of the user code, normalised (NormalizeUserCode)
	// Name is what the command line asked to call its token; the user may
	// change it when approving.
	Name string
	// RequestedScopes are the scopes the command line asked for, which the
	// approval page ticks first; nil when it asked for none.
	RequestedScopes []Scope
	// What the request that began it said of the command line, for the
	// user to recognise it: its User-Agent and address (as sessions keep
	// them).
	UserAgent string
	IP        string
	// Block is the address block of IP (DeviceLoginBlock), which the
	// bounds on logins waiting count by; stored, not read back.
	Block     string
	CreatedAt time.Time
	ExpiresAt time.Time
	// PolledAt is the last poll with the device code; nil before the first.
	PolledAt *time.Time

	// The decision, made in the browser: none (DecidedAt nil) while the
	// login waits. AccountID is the account that decided; Grant, when it
	// approved, the token it grants.
	AccountID int64
	DecidedAt *time.Time
	Grant     *DeviceGrant // nil when denied
}

// DeviceGrant is the token an approval grants: made, with its secret, when
// the command line collects it.
type DeviceGrant struct {
	Name      string
	Scopes    []Scope  // nil: every scope
	Packages  []string // nil: every pack
	ExpiresAt *time.Time
}

// DeviceDecision is what the browser decided about a login: AccountID
// approved it with Grant, or denied it (Grant nil), at At.
type DeviceDecision struct {
	AccountID int64
	At        time.Time
	Grant     *DeviceGrant
}

// The answers of a poll that gives no token (docs/protocol.md, Logging in
// through the browser); the answer carries each Reason as its code, as RFC
// 8628 names them, for the command line to act on.
var (
	ErrAuthorizationPending = &Error{Code: Invalid, Reason: "authorization_pending", Public: true,
		Message: "the login waits for its approval in the browser: poll again after the interval"}
	ErrSlowDown = &Error{Code: RateLimited, Reason: "slow_down", Public: true,
		Message: "polled too soon: wait 5 seconds between two polls"}
	ErrExpiredToken = &Error{Code: Invalid, Reason: "expired_token", Public: true,
		Message: "this device code expired, was used already, or was never given: start the login again"}
	ErrAccessDenied = &Error{Code: Forbidden, Reason: "access_denied", Public: true,
		Message: "the login was denied in the browser"}
	// ErrDeviceLoginsBlockFull is a new login beyond
	// MaxPendingDeviceLoginsPerBlock from its address block.
	ErrDeviceLoginsBlockFull = &Error{Code: RateLimited, Reason: "device_logins_full", Public: true,
		Message: "too many logins from your network wait for approval: try again in a few minutes, or log in with a token (pact login --token-stdin)"}
)

// ErrNoDeviceScope refuses an approval that names no scope.
var ErrNoDeviceScope = Errorf(Invalid, "Tick at least one scope: the command line gets only the scopes you tick. Nothing was approved.")

// errNoSuchUserCode answers a user code that names no waiting login, for
// whatever reason (mistyped, decided, expired): the page says the same.
var errNoSuchUserCode = Errorf(NotFound, "no login waits for this code: check it against your terminal, or run pact login again")

// DeviceStart is a login just begun: the codes the command line gets,
// which the store never sees.
type DeviceStart struct {
	DeviceCode string
	UserCode   string // formatted, "WDJB-MJHT"
	Login      *DeviceLogin
}

// StartDeviceLogin begins a login of the command line. name is the token's
// name it asks for ("" for DeviceLoginName), scopes the scopes it asks for
// (none: nil), which only preselect the approval's; client is what the
// request said of it.
func (s *Service) StartDeviceLogin(ctx context.Context, name string, scopes []string, client SessionClient) (*DeviceStart, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = DeviceLoginName
	}
	if err := checkLabel("token name", name, 100, false); err != nil {
		return nil, err
	}
	var requested []Scope
	if len(scopes) > 0 {
		var err error
		if requested, err = ParseScopes(scopes); err != nil {
			return nil, err
		}
	}
	now := s.now()
	// A clash of user codes is rare (10,000 waiting among 20^8); a new
	// pair of codes ends it.
	for attempt := 1; ; attempt++ {
		start := &DeviceStart{DeviceCode: NewSecret("", deviceCodeLength), UserCode: newUserCode()}
		start.Login = &DeviceLogin{DeviceHash: hashSecret(start.DeviceCode), UserHash: hashSecret(NormalizeUserCode(start.UserCode)),
			Name: name, RequestedScopes: requested, UserAgent: CleanUserAgent(client.UserAgent), IP: cleanIP(client.IP), Block: DeviceLoginBlock(client.IP),
			CreatedAt: now, ExpiresAt: now.Add(DeviceLoginLifetime)}
		err := CreateDeviceLogin(ctx, s.store, start.Login, s.maxDeviceLogins, MaxPendingDeviceLoginsPerBlock)
		if err == nil {
			return start, nil
		}
		if !IsCode(err, Conflict) || attempt == 3 {
			return nil, err
		}
	}
}

// CreateDeviceLogin stores d through st and sets d.ID, unless maxPerBlock
// logins of d.Block that have not expired at d.CreatedAt are stored
// already (ErrDeviceLoginsBlockFull, nothing stored). When maxPending
// logins that have not expired are stored, the oldest of the block with the
// most gives way, so one block's flood never keeps the others out. Conflict
// when the hash of its device code or user code is stored already. The
// counts are made in the transaction that stores d: on SQLite, the one
// writer makes the bounds exact; on PostgreSQL, logins begun at the same
// moment on several replicas may each count the others out and pass them by
// a few.
func CreateDeviceLogin(ctx context.Context, st Transactor, d *DeviceLogin, maxPending, maxPerBlock int) error {
	return st.Tx(ctx, func(tx Tx) error {
		inBlock, err := tx.CountDeviceLoginsOfBlock(d.Block, d.CreatedAt)
		if err != nil {
			return err
		}
		if inBlock >= maxPerBlock {
			return ErrDeviceLoginsBlockFull
		}
		waiting, err := tx.CountDeviceLogins(d.CreatedAt)
		if err != nil {
			return err
		}
		if waiting >= maxPending {
			block, found, err := tx.FullestDeviceLoginBlock(d.CreatedAt)
			if err != nil {
				return err
			}
			if found {
				if err := tx.DeleteOldestDeviceLogin(block, d.CreatedAt); err != nil {
					return err
				}
			}
		}
		return tx.InsertDeviceLogin(d)
	})
}

// DeviceLoginBlock is the address block logins are counted by: an IPv4
// address's /24, an IPv6 address's /48 (what one site is commonly given),
// "203.0.113.0/24"; "" for what is no address.
func DeviceLoginBlock(ip string) string {
	addr, err := netip.ParseAddr(strings.TrimSpace(ip))
	if err != nil {
		return ""
	}
	addr = addr.Unmap().WithZone("")
	bits := 48
	if addr.Is4() {
		bits = 24
	}
	prefix, err := addr.Prefix(bits)
	if err != nil {
		return ""
	}
	return prefix.String()
}

// newUserCode makes a user code as people read it: "WDJB-MJHT".
func newUserCode() string {
	var b strings.Builder
	buf := make([]byte, 1)
	for n := 0; n < userCodeLength; {
		if _, err := rand.Read(buf); err != nil {
			panic(err) // crypto/rand never fails on supported platforms
		}
		// Reject bytes >= 240 so every letter is equally likely.
		if buf[0] >= 240 {
			continue
		}
		if n == userCodeLength/2 {
			b.WriteByte('-')
		}
		b.WriteByte(userCodeAlphabet[int(buf[0])%len(userCodeAlphabet)])
		n++
	}
	return b.String()
}

// NormalizeUserCode is a user code as typed ("wdjb mjht", "WDJB-MJHT")
// without its case, spaces and dashes, or "" when it cannot be one.
func NormalizeUserCode(code string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(code) {
		switch {
		case r == '-' || r == ' ' || r == '\t':
		case strings.ContainsRune(userCodeAlphabet, r):
			b.WriteRune(r)
		default:
			return ""
		}
		if b.Len() > userCodeLength {
			return ""
		}
	}
	if b.Len() != userCodeLength {
		return ""
	}
	return b.String()
}

// FormatUserCode writes a normalised user code as it is shown, "WDJB-MJHT".
func FormatUserCode(code string) string {
	if len(code) != userCodeLength {
		return code
	}
	return code[:userCodeLength/2] + "-" + code[userCodeLength/2:]
}

func (s *Service) userCodeHash(code string) ([]byte, error) {
	normal := NormalizeUserCode(code)
	if normal == "" {
		return nil, errNoSuchUserCode
	}
	return hashSecret(normal), nil
}

// PendingDeviceLogin answers the login userCode names while it waits for
// its decision; NotFound for every other code (mistyped, decided, expired).
func (s *Service) PendingDeviceLogin(ctx context.Context, userCode string) (*DeviceLogin, error) {
	hash, err := s.userCodeHash(userCode)
	if err != nil {
		return nil, err
	}
	d, err := s.store.PendingDeviceLogin(ctx, hash, s.now())
	if IsCode(err, NotFound) {
		return nil, errNoSuchUserCode
	}
	return d, err
}

// ApproveDeviceLogin approves, for accountID, the login userCode names,
// granting the token spec describes: the dashboard's token, by the same
// rules (IssueToken with no maker), checked now; without a name, the one
// the command line asked for. Unlike the dashboard's, it must name its
// scopes (ErrNoDeviceScope): a login approved in passing never holds every
// scope. The token is made when the command line collects it. NotFound
// when no login waits for the code.
func (s *Service) ApproveDeviceLogin(ctx context.Context, accountID int64, userCode string, spec TokenSpec) error {
	hash, err := s.userCodeHash(userCode)
	if err != nil {
		return err
	}
	if len(spec.Scopes) == 0 {
		return ErrNoDeviceScope
	}
	if strings.TrimSpace(spec.Name) == "" {
		d, err := s.PendingDeviceLogin(ctx, userCode)
		if err != nil {
			return err
		}
		spec.Name = d.Name
	}
	t, err := s.prepareToken(ctx, accountID, nil, TokenSpec{Name: spec.Name, Scopes: spec.Scopes, Packages: spec.Packages,
		ExpiresInDays: spec.ExpiresInDays, ExpiresAt: spec.ExpiresAt})
	if err != nil {
		return err
	}
	return s.decideDeviceLogin(ctx, hash, DeviceDecision{AccountID: accountID, At: s.now(),
		Grant: &DeviceGrant{Name: t.Name, Scopes: t.Scopes, Packages: t.Packages, ExpiresAt: t.ExpiresAt}})
}

// DenyDeviceLogin denies, for accountID, the login userCode names: its
// command line is answered ErrAccessDenied. NotFound when no login waits
// for the code.
func (s *Service) DenyDeviceLogin(ctx context.Context, accountID int64, userCode string) error {
	hash, err := s.userCodeHash(userCode)
	if err != nil {
		return err
	}
	if err := s.checkUserID(ctx, accountID); err != nil {
		return err
	}
	return s.decideDeviceLogin(ctx, hash, DeviceDecision{AccountID: accountID, At: s.now()})
}

func (s *Service) decideDeviceLogin(ctx context.Context, userHash []byte, d DeviceDecision) error {
	err := s.store.DecideDeviceLogin(ctx, userHash, d)
	if IsCode(err, NotFound) {
		return errNoSuchUserCode
	}
	return err
}

// ExchangeDeviceCode is the command line's poll: it answers the token an
// approved login grants, made now, once; or why there is none yet
// (ErrAuthorizationPending, ErrSlowDown) or will be none (ErrAccessDenied,
// ErrExpiredToken). A poll sooner than DevicePollInterval after the
// previous one of a waiting login is ErrSlowDown.
func (s *Service) ExchangeDeviceCode(ctx context.Context, deviceCode string) (string, *Token, error) {
	if deviceCode == "" {
		return "", nil, Errorf(Invalid, "device_code is required: send the device_code of POST /api/login/device")
	}
	if len(deviceCode) != deviceCodeLength {
		return "", nil, ErrExpiredToken
	}
	hash := hashSecret(deviceCode)
	now := s.now()
	d, recorded, err := s.store.PollDeviceLogin(ctx, hash, now, now.Add(-DevicePollInterval))
	if IsCode(err, NotFound) {
		return "", nil, ErrExpiredToken
	}
	if err != nil {
		return "", nil, err
	}
	switch {
	case !now.Before(d.ExpiresAt):
		return "", nil, ErrExpiredToken
	case d.DecidedAt == nil && !recorded:
		return "", nil, ErrSlowDown
	case d.DecidedAt == nil:
		return "", nil, ErrAuthorizationPending
	case d.Grant == nil:
		return "", nil, ErrAccessDenied
	}
	// The token is made as the approval checked it, by the same rules
	// now: the account may have been disabled, or reached its bound of
	// tokens, since.
	acct, err := s.userByID(ctx, d.AccountID)
	if err == nil {
		err = checkAccountEnabled(acct)
	}
	if err != nil {
		return "", nil, err
	}
	spec := TokenSpec{Name: d.Grant.Name, Packages: d.Grant.Packages, ExpiresAt: d.Grant.ExpiresAt}
	if d.Grant.Scopes != nil {
		spec.Scopes = make([]string, len(d.Grant.Scopes))
		for i, sc := range d.Grant.Scopes {
			spec.Scopes[i] = string(sc)
		}
	}
	t, err := s.prepareToken(ctx, d.AccountID, nil, spec)
	if err != nil {
		return "", nil, err
	}
	secret, t, err := s.storeToken(t, func(t *Token) error { return s.store.ExchangeDeviceLogin(ctx, hash, now, t) })
	if IsCode(err, NotFound) { // collected by a poll that ran alongside
		return "", nil, ErrExpiredToken
	}
	if err != nil {
		return "", nil, err
	}
	s.tokenCreated(ctx, t)
	return secret, t, nil
}

// PruneDeviceLogins deletes the logins that expired, and answers how many.
func (s *Service) PruneDeviceLogins(ctx context.Context) (int64, error) {
	return s.store.PruneDeviceLogins(ctx, s.now())
}
