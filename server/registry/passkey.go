package registry

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Passkeys for the dashboard (docs/protocol.md, Passkeys): a user registers
// WebAuthn credentials, logs in with one instead of the password, and may
// require one after the password (a second factor), with one-time recovery
// codes for a lost passkey. The RelyingParty (server/passkeys, on
// go-webauthn) does every check of the ceremonies (challenge, origin, RP
// ID, signature, flags); the domain keeps their state, single-use and
// short-lived, and decides who may do what.
//
// Registering a passkey and logging in with one keep the state between
// begin and finish with the browser, sealed (AES-256-GCM under a key the
// replicas share through the database, sealCeremony): a visitor who begins
// ceremonies by the thousand stores nothing, so nobody can fill a table
// that others need. A log-in that succeeded spends its challenge in the
// store, so the same answer cannot log in twice. A log-in whose password
// held waits for its second factor in the store, bounded per account.
const (
	// CeremonyLifetime is how long a ceremony (begin to finish) and a
	// log-in waiting for its second factor last.
	CeremonyLifetime = 5 * time.Minute
	// MaxPendingSecondFactors bounds the log-ins of one account waiting
	// for their second factor; a new one makes the oldest give way, so
	// it is never refused.
	MaxPendingSecondFactors = 10
	// MaxPasskeysPerAccount bounds the passkeys one account registers.
	MaxPasskeysPerAccount = 20
	// MaxPasskeyName bounds a passkey's name.
	MaxPasskeyName = 100
	// RecoveryCodeCount is how many recovery codes are made at once;
	// making them again replaces every unused one.
	RecoveryCodeCount = 10
	// MaxCredentialBytes bounds the JSON a browser posts to finish a
	// ceremony.
	MaxCredentialBytes = 32 << 10

	ceremonyIDLength = 43 // base62 ≈ 256 bits
	// maxSealedCeremony bounds the sealed state a browser may send back.
	maxSealedCeremony = 4096
	// ceremonyKeyName names the key of sealed ceremonies among the
	// secrets the replicas share (Store.ServerSecret).
	ceremonyKeyName = "webauthn-ceremony-key"
	// ceremonyAD is the additional data of every sealed ceremony: a box
	// sealed under the same key for another purpose does not open.
	ceremonyAD = "pact webauthn ceremony v1"
	// A recovery code is 16 characters of recoveryAlphabet (80 bits),
	// shown in four groups of four.
	recoveryAlphabet   = "abcdefghijkmnpqrstuvwxyz23456789"
	recoveryCodeLength = 16
)

// The kinds of ceremony state.
const (
	CeremonyRegister     = "register"      // a logged-in user adds a passkey
	CeremonyLogin        = "login"         // a log-in with a passkey instead of the password
	CeremonySecondFactor = "second-factor" // a log-in whose password held, waiting for its passkey
)

// Passkey is a WebAuthn credential of a user.
type Passkey struct {
	ID           int64
	AccountID    int64
	CredentialID []byte
	PublicKey    []byte
	SignCount    uint32
	Transports   []string
	Name         string
	// Record is the relying party's credential record (go-webauthn's,
	// JSON: flags, AAGUID, attestation); SignCount wins over its counter.
	Record     []byte
	CreatedAt  time.Time
	LastUsedAt *time.Time
}

// Ceremony is a log-in whose password held, waiting for its second factor
// (with the state of its WebAuthn ceremony once begun), found by the
// SHA-256 of a random id the browser holds.
type Ceremony struct {
	Hash      []byte
	Kind      string
	AccountID int64  // 0 for a log-in that has not named its account yet
	Session   []byte // the RelyingParty's session; empty before a begin
	CreatedAt time.Time
	ExpiresAt time.Time
}

// PasskeyStore keeps passkeys, recovery codes and the ceremonies between
// their steps. The changes that count or cascade go through a Tx:
// RemovePasskey, SetRequireSecondFactor and CreateCeremony.
type PasskeyStore interface {
	// CreatePasskey sets p.ID and stores p. Conflict when its credential
	// id is registered already, by any account.
	CreatePasskey(ctx context.Context, p *Passkey) error
	// ListPasskeys lists an account's passkeys, oldest first.
	ListPasskeys(ctx context.Context, accountID int64) ([]Passkey, error)
	// PasskeyByCredentialID finds a passkey by its credential id.
	PasskeyByCredentialID(ctx context.Context, credentialID []byte) (*Passkey, error)
	// UsePasskey records a use: the new signature count and when.
	UsePasskey(ctx context.Context, id int64, signCount uint32, at time.Time) error
	// ReplaceRecoveryCodes deletes an account's recovery codes and stores
	// the SHA-256 of new ones.
	ReplaceRecoveryCodes(ctx context.Context, accountID int64, hashes [][]byte, at time.Time) error
	// UseRecoveryCode deletes one of an account's codes by its hash;
	// NotFound when it has no such code (unknown or used already).
	UseRecoveryCode(ctx context.Context, accountID int64, hash []byte) error
	// CountRecoveryCodes counts an account's unused codes.
	CountRecoveryCodes(ctx context.Context, accountID int64) (int, error)
	// CeremonyByHash reads a ceremony that has not expired at now.
	CeremonyByHash(ctx context.Context, hash []byte, now time.Time) (*Ceremony, error)
	// SetCeremonySession replaces the session of a ceremony that has not
	// expired at now; NotFound otherwise.
	SetCeremonySession(ctx context.Context, hash, session []byte, now time.Time) error
	// TakeCeremony deletes a ceremony and answers it when it had not
	// expired at now; NotFound otherwise, so each is finished once.
	TakeCeremony(ctx context.Context, hash []byte, now time.Time) (*Ceremony, error)
	// SpendChallenge records the hash of a ceremony's challenge as used
	// until until (the expired ones are deleted on the way); Conflict when
	// it is recorded already, so each is spent once.
	SpendChallenge(ctx context.Context, hash []byte, at, until time.Time) error
	// ServerSecret answers the secret stored under name, storing fresh
	// first when there is none, so every replica reads the same one.
	ServerSecret(ctx context.Context, name string, fresh []byte, at time.Time) ([]byte, error)
}

// RelyingParty checks the WebAuthn ceremonies for the domain
// (server/passkeys does, on go-webauthn): pactd as WebAuthn knows it. A
// ceremony's state between its begin and its finish (session) is opaque
// bytes the domain keeps; options are the JSON the browser's
// navigator.credentials call takes. A Finish or ParseAssertion that
// refuses the browser's answer says so with a *PasskeyRefusal; any other
// error is a fault.
type RelyingParty interface {
	// BeginRegistration starts adding a passkey to user, excluding those
	// it has.
	BeginRegistration(user PasskeyUser) (options json.RawMessage, session []byte, err error)
	// FinishRegistration checks answer (the JSON of a
	// PublicKeyCredential) and answers the new passkey's CredentialID,
	// PublicKey, SignCount, Transports and Record.
	FinishRegistration(user PasskeyUser, session, answer []byte) (*Passkey, error)
	// BeginDiscoverableLogin starts a log-in that names no account: the
	// authenticator offers the passkeys it holds for this site.
	BeginDiscoverableLogin() (options json.RawMessage, session []byte, err error)
	// BeginLogin starts the second factor of user's log-in.
	BeginLogin(user PasskeyUser) (options json.RawMessage, session []byte, err error)
	// ParseAssertion reads the browser's answer to a log-in, which names
	// its passkey.
	ParseAssertion(answer []byte) (PasskeyAssertion, error)
	// FinishDiscoverableLogin and FinishLogin check an answer to a log-in
	// begun by BeginDiscoverableLogin and BeginLogin, for user.
	FinishDiscoverableLogin(user PasskeyUser, session []byte, answer PasskeyAssertion) (PasskeyUse, error)
	FinishLogin(user PasskeyUser, session []byte, answer PasskeyAssertion) (PasskeyUse, error)
}

// PasskeyUser is an account with its passkeys, as a ceremony needs it.
type PasskeyUser struct {
	Account  *Account
	Passkeys []Passkey
}

// PasskeyAssertion is a browser's answer to a log-in, parsed.
type PasskeyAssertion interface {
	// CredentialID names the passkey that answered.
	CredentialID() []byte
}

// PasskeyUse is a log-in a passkey answered and the relying party
// checked.
type PasskeyUse struct {
	CredentialID []byte
	SignCount    uint32
	// CloneWarning: the passkey's signature counter went backwards.
	CloneWarning bool
	// Challenge is the ceremony's challenge, which a log-in spends.
	Challenge string
}

// PasskeyRefusal is a browser's answer the relying party refused:
// Malformed when it is not an answer at all; Details, when not empty,
// say which check failed.
type PasskeyRefusal struct {
	Malformed bool
	Details   string
}

func (e *PasskeyRefusal) Error() string {
	if e.Details != "" {
		return "passkey refused: " + e.Details
	}
	return "passkey refused"
}

func (s *Service) passkeyUser(ctx context.Context, acct *Account) (PasskeyUser, error) {
	keys, err := s.store.ListPasskeys(ctx, acct.ID)
	return PasskeyUser{Account: acct, Passkeys: keys}, err
}

// ListPasskeys lists an account's passkeys, oldest first.
func (s *Service) ListPasskeys(ctx context.Context, accountID int64) ([]Passkey, error) {
	return s.store.ListPasskeys(ctx, accountID)
}

// ceremonyKey is the AEAD sealing ceremonies, read from the store once.
type ceremonyKey struct {
	mu   sync.Mutex
	aead cipher.AEAD
}

// ceremonyAEAD answers the AEAD of sealed ceremonies, with the key the
// replicas share (made by the first replica that needs one).
func (s *Service) ceremonyAEAD(ctx context.Context) (cipher.AEAD, error) {
	k := &s.ceremonyKey
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.aead != nil {
		return k.aead, nil
	}
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	key, err := s.store.ServerSecret(ctx, ceremonyKeyName, fresh, s.now())
	if err != nil {
		return nil, err
	}
	if len(key) != 32 {
		return nil, fmt.Errorf("the stored key of passkey ceremonies has %d bytes, not 32", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	if k.aead, err = cipher.NewGCM(block); err != nil {
		return nil, err
	}
	return k.aead, nil
}

// sealedCeremony is what the browser keeps of a registration or a passkey
// log-in between its begin and its finish, sealed.
type sealedCeremony struct {
	Kind      string          `json:"kind"`
	AccountID int64           `json:"account,omitempty"`
	ExpiresAt int64           `json:"expires"` // Unix seconds, the service's clock
	Session   json.RawMessage `json:"session"` // the RelyingParty's session, JSON
}

// sealCeremony answers the state of a ceremony sealed for the browser to
// keep: the nonce and the AES-GCM box, base64url.
func (s *Service) sealCeremony(ctx context.Context, kind string, accountID int64, session []byte) (string, error) {
	aead, err := s.ceremonyAEAD(ctx)
	if err != nil {
		return "", err
	}
	plain, err := json.Marshal(sealedCeremony{Kind: kind, AccountID: accountID, Session: session,
		ExpiresAt: s.now().Add(CeremonyLifetime).Unix()})
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, plain, []byte(ceremonyAD))), nil
}

// openCeremony answers the state sealCeremony sealed, if it is of kind
// and has not expired; errNoCeremony for anything else, forged or not.
func (s *Service) openCeremony(ctx context.Context, sealed, kind string) (*sealedCeremony, error) {
	if sealed == "" || len(sealed) > maxSealedCeremony {
		return nil, errNoCeremony
	}
	box, err := base64.RawURLEncoding.DecodeString(sealed)
	if err != nil {
		return nil, errNoCeremony
	}
	aead, err := s.ceremonyAEAD(ctx)
	if err != nil {
		return nil, err
	}
	if len(box) < aead.NonceSize() {
		return nil, errNoCeremony
	}
	plain, err := aead.Open(nil, box[:aead.NonceSize()], box[aead.NonceSize():], []byte(ceremonyAD))
	if err != nil {
		return nil, errNoCeremony
	}
	var c sealedCeremony
	if err := json.Unmarshal(plain, &c); err != nil || c.Kind != kind || len(c.Session) == 0 || string(c.Session) == "null" || s.now().Unix() >= c.ExpiresAt {
		return nil, errNoCeremony
	}
	return &c, nil
}

// newCeremony stores a log-in waiting for its second factor and answers
// the id the browser keeps for it.
func (s *Service) newCeremony(ctx context.Context, kind string, accountID int64) (string, error) {
	id := NewSecret("", ceremonyIDLength)
	now := s.now()
	c := &Ceremony{Hash: hashSecret(id), Kind: kind, AccountID: accountID, CreatedAt: now, ExpiresAt: now.Add(CeremonyLifetime)}
	if err := CreateCeremony(ctx, s.store, c, MaxPendingSecondFactors); err != nil {
		return "", err
	}
	return id, nil
}

// CreateCeremony stores c through st, in one transaction that first
// deletes the expired ceremonies and, beyond maxPerAccount-1 of c's
// account, its oldest, so c never is refused and one account's log-ins
// never crowd out another's. NotFound when c's account does not exist,
// Conflict when a ceremony has its hash.
func CreateCeremony(ctx context.Context, st Transactor, c *Ceremony, maxPerAccount int) error {
	return st.Tx(ctx, func(tx Tx) error {
		if err := tx.DeleteExpiredCeremonies(c.CreatedAt); err != nil {
			return err
		}
		if c.AccountID != 0 {
			if err := tx.DeleteCeremoniesBeyond(c.AccountID, max(maxPerAccount-1, 0)); err != nil {
				return err
			}
		}
		return tx.InsertCeremony(c)
	})
}

var errNoCeremony = Errorf(Unauthorized, "this passkey step has expired or was used already: begin again")

// takeCeremony takes the ceremony of id, which must be of kind.
func (s *Service) takeCeremony(ctx context.Context, id, kind string) (*Ceremony, error) {
	if id == "" || len(id) > maxSessionIDLength {
		return nil, errNoCeremony
	}
	c, err := s.store.TakeCeremony(ctx, hashSecret(id), s.now())
	if IsCode(err, NotFound) || err == nil && (c.Kind != kind || len(c.Session) == 0) {
		return nil, errNoCeremony
	}
	return c, err
}

// refused words the relying party's refusal of an answer: the details
// that say which check failed, never the library's internals. An answer
// that is not one is said so; any other error is a fault, passed on.
func refused(err error) error {
	var r *PasskeyRefusal
	if !errors.As(err, &r) {
		return err
	}
	what := "the passkey was refused"
	if r.Malformed {
		what = "the passkey's answer is not one"
	}
	if r.Details != "" {
		return Errorf(Unauthorized, "%s: %s", what, r.Details)
	}
	return Errorf(Unauthorized, "%s", what)
}

// BeginPasskeyRegistration starts adding a passkey to acct: it answers
// the options for navigator.credentials.create and the id of the
// ceremony, which FinishPasskeyRegistration needs.
func (s *Service) BeginPasskeyRegistration(ctx context.Context, rp RelyingParty, acct *Account) (json.RawMessage, string, error) {
	if err := checkUser(acct); err != nil {
		return nil, "", err
	}
	u, err := s.passkeyUser(ctx, acct)
	if err != nil {
		return nil, "", err
	}
	if len(u.Passkeys) >= MaxPasskeysPerAccount {
		return nil, "", Errorf(Conflict, "%s has %d passkeys, the most one account may; remove one first", acct.Username, len(u.Passkeys))
	}
	creation, session, err := rp.BeginRegistration(u)
	if err != nil {
		return nil, "", err
	}
	id, err := s.sealCeremony(ctx, CeremonyRegister, acct.ID, session)
	return creation, id, err
}

// FinishPasskeyRegistration checks the browser's answer (credential, the
// JSON of a PublicKeyCredential) to the ceremony id began, and stores the
// passkey under name. The ceremony is used up whatever the answer.
func (s *Service) FinishPasskeyRegistration(ctx context.Context, rp RelyingParty, acct *Account, ceremonyID, name string, credential []byte) (*Passkey, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = "Passkey"
	}
	if err := checkLabel("name", name, MaxPasskeyName, false); err != nil {
		return nil, err
	}
	if len(credential) > MaxCredentialBytes {
		return nil, Errorf(TooLarge, "the passkey's answer is larger than %d bytes", MaxCredentialBytes)
	}
	c, err := s.openCeremony(ctx, ceremonyID, CeremonyRegister)
	if err != nil {
		return nil, err
	}
	if c.AccountID != acct.ID {
		return nil, errNoCeremony
	}
	u, err := s.passkeyUser(ctx, acct)
	if err != nil {
		return nil, err
	}
	p, err := rp.FinishRegistration(u, c.Session, credential)
	if err != nil {
		return nil, refused(err)
	}
	p.AccountID, p.Name, p.CreatedAt = acct.ID, name, s.now()
	if err := s.store.CreatePasskey(ctx, p); err != nil {
		if IsCode(err, Conflict) {
			return nil, Errorf(Conflict, "this passkey is registered already")
		}
		return nil, err
	}
	s.emit(ctx, Event{Action: ActionPasskeyAdd, Actor: acct.Username, Message: acct.Username + " added the passkey " + name})
	return p, nil
}

// BeginPasskeyLogin starts a log-in with a passkey instead of the
// password: the options for navigator.credentials.get (no account named:
// the authenticator offers the passkeys it holds for this site) and the
// id of the ceremony.
func (s *Service) BeginPasskeyLogin(ctx context.Context, rp RelyingParty) (json.RawMessage, string, error) {
	assertion, session, err := rp.BeginDiscoverableLogin()
	if err != nil {
		return nil, "", err
	}
	id, err := s.sealCeremony(ctx, CeremonyLogin, 0, session)
	return assertion, id, err
}

// FinishPasskeyLogin checks the browser's answer to the log-in ceremony
// id began and answers the account it logs in. gate, when not nil, is
// asked once the passkey's account is known, before its signature is
// checked: a refusal (the log-in throttle) ends the log-in with it. The
// ceremony is used up whatever the answer.
func (s *Service) FinishPasskeyLogin(ctx context.Context, rp RelyingParty, ceremonyID string, credential []byte, gate func(*Account) error) (*Account, error) {
	if len(credential) > MaxCredentialBytes {
		return nil, Errorf(TooLarge, "the passkey's answer is larger than %d bytes", MaxCredentialBytes)
	}
	c, err := s.openCeremony(ctx, ceremonyID, CeremonyLogin)
	if err != nil {
		return nil, err
	}
	parsed, err := rp.ParseAssertion(credential)
	if err != nil {
		return nil, refused(err)
	}
	key, err := s.store.PasskeyByCredentialID(ctx, parsed.CredentialID())
	if IsCode(err, NotFound) {
		return nil, Errorf(Unauthorized, "this passkey is not registered here")
	}
	if err != nil {
		return nil, err
	}
	acct, err := s.store.AccountByID(ctx, key.AccountID)
	if err != nil {
		return nil, err
	}
	if gate != nil {
		if err := gate(acct); err != nil {
			return nil, err
		}
	}
	u, err := s.passkeyUser(ctx, acct)
	if err != nil {
		return nil, err
	}
	use, err := rp.FinishDiscoverableLogin(u, c.Session, parsed)
	if err != nil {
		return nil, refused(err)
	}
	// The browser keeps the ceremony: its challenge is spent here, so the
	// same answer (a copy of the cookie and the post) logs in once.
	err = s.store.SpendChallenge(ctx, hashSecret(use.Challenge), s.now(), time.Unix(c.ExpiresAt, 0))
	if IsCode(err, Conflict) {
		return nil, errNoCeremony
	}
	if err != nil {
		return nil, err
	}
	if err := s.passkeyUsed(ctx, key, use); err != nil {
		return nil, err
	}
	if err := checkAccountEnabled(acct); err != nil {
		return nil, err
	}
	return acct, nil
}

// passkeyUsed records a use of key, and refuses a passkey whose counter
// went backwards: a clone of it is being used.
func (s *Service) passkeyUsed(ctx context.Context, key *Passkey, use PasskeyUse) error {
	if use.CloneWarning {
		return Errorf(Unauthorized, "the passkey was refused: its signature counter went backwards, so it may have been copied; remove it and register a new one")
	}
	return s.store.UsePasskey(ctx, key.ID, use.SignCount, s.now())
}

// StartSecondFactor is called when acct's password held and acct requires
// a second factor: it answers the id of the log-in waiting for it.
func (s *Service) StartSecondFactor(ctx context.Context, acct *Account) (string, error) {
	return s.newCeremony(ctx, CeremonySecondFactor, acct.ID)
}

// SecondFactorAccount answers the account of a log-in waiting for its
// second factor; Unauthorized when there is none (expired, or finished).
func (s *Service) SecondFactorAccount(ctx context.Context, id string) (*Account, error) {
	if id == "" || len(id) > maxSessionIDLength {
		return nil, errNoCeremony
	}
	c, err := s.store.CeremonyByHash(ctx, hashSecret(id), s.now())
	if IsCode(err, NotFound) || err == nil && c.Kind != CeremonySecondFactor {
		return nil, errNoCeremony
	}
	if err != nil {
		return nil, err
	}
	return s.store.AccountByID(ctx, c.AccountID)
}

// BeginSecondFactor answers the options for navigator.credentials.get of
// the log-in id, for its account's passkeys; each begin replaces the
// challenge of the one before.
func (s *Service) BeginSecondFactor(ctx context.Context, rp RelyingParty, id string) (json.RawMessage, error) {
	acct, err := s.SecondFactorAccount(ctx, id)
	if err != nil {
		return nil, err
	}
	u, err := s.passkeyUser(ctx, acct)
	if err != nil {
		return nil, err
	}
	if len(u.Passkeys) == 0 {
		return nil, Errorf(Conflict, "%s has no passkey: log in with a recovery code", acct.Username)
	}
	assertion, session, err := rp.BeginLogin(u)
	if err != nil {
		return nil, err
	}
	if err := s.store.SetCeremonySession(ctx, hashSecret(id), session, s.now()); err != nil {
		if IsCode(err, NotFound) {
			return nil, errNoCeremony
		}
		return nil, err
	}
	return assertion, nil
}

// FinishSecondFactor checks the passkey's answer for the log-in id and
// answers its account. The log-in is used up whatever the answer: a
// refused passkey begins again with the password.
func (s *Service) FinishSecondFactor(ctx context.Context, rp RelyingParty, id string, credential []byte) (*Account, error) {
	if len(credential) > MaxCredentialBytes {
		return nil, Errorf(TooLarge, "the passkey's answer is larger than %d bytes", MaxCredentialBytes)
	}
	c, err := s.takeCeremony(ctx, id, CeremonySecondFactor)
	if err != nil {
		return nil, err
	}
	acct, err := s.store.AccountByID(ctx, c.AccountID)
	if err != nil {
		return nil, err
	}
	parsed, err := rp.ParseAssertion(credential)
	if err != nil {
		return nil, refused(err)
	}
	u, err := s.passkeyUser(ctx, acct)
	if err != nil {
		return nil, err
	}
	use, err := rp.FinishLogin(u, c.Session, parsed)
	if err != nil {
		return nil, refused(err)
	}
	key, err := s.store.PasskeyByCredentialID(ctx, use.CredentialID)
	if err != nil {
		return nil, err
	}
	if err := s.passkeyUsed(ctx, key, use); err != nil {
		return nil, err
	}
	return acct, checkAccountEnabled(acct)
}

// RecoverSecondFactor finishes the log-in id with one of its account's
// recovery codes, which is used up. A wrong code leaves the log-in
// waiting (the log-in throttle counts the guesses).
func (s *Service) RecoverSecondFactor(ctx context.Context, id, code string) (*Account, error) {
	acct, err := s.SecondFactorAccount(ctx, id)
	if err != nil {
		return nil, err
	}
	code = NormalizeRecoveryCode(code)
	if len(code) != recoveryCodeLength {
		return nil, Errorf(Unauthorized, "wrong recovery code")
	}
	if err := s.store.UseRecoveryCode(ctx, acct.ID, hashSecret(code)); err != nil {
		if IsCode(err, NotFound) {
			return nil, Errorf(Unauthorized, "wrong recovery code")
		}
		return nil, err
	}
	// The code is spent: the log-in ends here even if this fails.
	_, _ = s.store.TakeCeremony(ctx, hashSecret(id), s.now())
	s.emit(ctx, Event{Action: ActionRecoveryCodeUse, Actor: acct.Username, Message: acct.Username + " logged in with a recovery code"})
	return acct, checkAccountEnabled(acct)
}

// NormalizeRecoveryCode drops what people add when typing a code back:
// spaces, dashes and capitals.
func NormalizeRecoveryCode(code string) string {
	if len(code) > 100 {
		return ""
	}
	return strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' || r == '\t' {
			return -1
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, code)
}

// NewRecoveryCodes makes RecoveryCodeCount recovery codes for acct,
// replacing the ones it had; they are answered once, stored as SHA-256.
func (s *Service) NewRecoveryCodes(ctx context.Context, acct *Account) ([]string, error) {
	if err := checkUser(acct); err != nil {
		return nil, err
	}
	codes := make([]string, RecoveryCodeCount)
	hashes := make([][]byte, RecoveryCodeCount)
	for i := range codes {
		raw := randomFrom(recoveryAlphabet, recoveryCodeLength)
		hashes[i] = hashSecret(raw)
		codes[i] = raw[0:4] + "-" + raw[4:8] + "-" + raw[8:12] + "-" + raw[12:16]
	}
	if err := s.store.ReplaceRecoveryCodes(ctx, acct.ID, hashes, s.now()); err != nil {
		return nil, err
	}
	return codes, nil
}

// RecoveryCodesLeft counts acct's unused recovery codes.
func (s *Service) RecoveryCodesLeft(ctx context.Context, accountID int64) (int, error) {
	return s.store.CountRecoveryCodes(ctx, accountID)
}

// SetSecondFactor turns acct's second factor on or off. On needs a
// passkey, and answers new recovery codes when acct has none left; off
// removes a factor, so it needs the password (Unauthorized when wrong),
// and deletes the recovery codes.
func (s *Service) SetSecondFactor(ctx context.Context, acct *Account, on bool, password string) ([]string, error) {
	if err := checkUser(acct); err != nil {
		return nil, err
	}
	if !on {
		if acct.RequireSecondFactor && (acct.PasswordHash == "" || !s.checkPassword(acct.PasswordHash, password)) {
			return nil, Errorf(Unauthorized, "your password is wrong: turning the second factor off needs it")
		}
		if err := SetRequireSecondFactor(ctx, s.store, acct.ID, false); err != nil {
			return nil, err
		}
		acct.RequireSecondFactor = false
		s.emit(ctx, Event{Action: ActionSecondFactor, Actor: acct.Username, Message: acct.Username + " turned its second factor off"})
		return nil, nil
	}
	keys, err := s.store.ListPasskeys(ctx, acct.ID)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, Errorf(Conflict, "add a passkey first: the second factor is a passkey")
	}
	var codes []string
	if n, err := s.store.CountRecoveryCodes(ctx, acct.ID); err != nil {
		return nil, err
	} else if n == 0 {
		if codes, err = s.NewRecoveryCodes(ctx, acct); err != nil {
			return nil, err
		}
	}
	if err := SetRequireSecondFactor(ctx, s.store, acct.ID, true); err != nil {
		return nil, err
	}
	acct.RequireSecondFactor = true
	s.emit(ctx, Event{Action: ActionSecondFactor, Actor: acct.Username, Message: acct.Username + " turned its second factor on"})
	return codes, nil
}

// DeletePasskey removes one of acct's passkeys. The last one of an account
// that requires a second factor is its last factor but the password: it
// goes only with the password (Unauthorized when wrong), and the second
// factor goes with it.
func (s *Service) DeletePasskey(ctx context.Context, acct *Account, id int64, password string) error {
	keys, err := s.store.ListPasskeys(ctx, acct.ID)
	if err != nil {
		return err
	}
	var name string
	for _, k := range keys {
		if k.ID == id {
			name = k.Name
		}
	}
	if name == "" {
		return Errorf(NotFound, "no such passkey")
	}
	last := acct.RequireSecondFactor && len(keys) == 1
	if last {
		if acct.PasswordHash == "" || !s.checkPassword(acct.PasswordHash, password) {
			return Errorf(Unauthorized, "your password is wrong: removing your last passkey turns the second factor off, which needs it")
		}
	}
	if err := RemovePasskey(ctx, s.store, acct.ID, id, acct.RequireSecondFactor && !last, last); err != nil {
		return err
	}
	s.emit(ctx, Event{Action: ActionPasskeyRemove, Actor: acct.Username, Message: acct.Username + " removed the passkey " + name})
	if last {
		acct.RequireSecondFactor = false
	}
	return nil
}

// RemovePasskey deletes accountID's passkey id through st, in one
// transaction that holds the account's row first, so that two removals at
// once, on any replica, count the passkeys in turn (without it both count
// two and both delete, leaving none). With keepOne it refuses (Conflict,
// nothing deleted) to delete the account's last passkey. With
// secondFactorOff the account's second factor goes with it, and its
// recovery codes (SetRequireSecondFactor). NotFound when the account has no
// such passkey.
func RemovePasskey(ctx context.Context, st Transactor, accountID, id int64, keepOne, secondFactorOff bool) error {
	return st.Tx(ctx, func(tx Tx) error {
		if err := accountThere(tx.LockAccount, accountID); err != nil {
			return err
		}
		if keepOne {
			n, err := tx.CountPasskeys(accountID)
			if err != nil {
				return err
			}
			if n <= 1 {
				return Errorf(Conflict, "this is now your last passkey: removing it needs your password")
			}
		}
		deleted, err := tx.DeletePasskeyRow(accountID, id)
		if err != nil {
			return err
		}
		if !deleted {
			return Errorf(NotFound, "no such passkey %d", id)
		}
		if secondFactorOff {
			return setRequireSecondFactor(tx, accountID, false)
		}
		return nil
	})
}

// SetRequireSecondFactor sets accountID's require_second_factor through
// st. Turning it off deletes the account's recovery codes in the same
// transaction: they stand in for a second factor that is no more. NotFound
// when the account does not exist.
func SetRequireSecondFactor(ctx context.Context, st Transactor, accountID int64, on bool) error {
	return st.Tx(ctx, func(tx Tx) error {
		return setRequireSecondFactor(tx, accountID, on)
	})
}

func setRequireSecondFactor(tx Tx, accountID int64, on bool) error {
	there, err := tx.SetRequireSecondFactor(accountID, on)
	if err != nil {
		return err
	}
	if !there {
		return Errorf(NotFound, "no such account %d", accountID)
	}
	if !on {
		return tx.DeleteRecoveryCodes(accountID)
	}
	return nil
}

// IsLastFactor reports whether removing passkeys would remove acct's last
// second factor, for the dashboard to ask the password.
func (s *Service) IsLastFactor(acct *Account, passkeys int) bool {
	return acct.RequireSecondFactor && passkeys == 1
}

// SetOrgRequiresSecondFactor sets whether the members of the organisation
// named org need a second factor to manage it from the dashboard, on
// behalf of actor, an owner, who must have one itself to turn it on.
func (s *Service) SetOrgRequiresSecondFactor(ctx context.Context, actor *Account, org string, on bool) error {
	o, err := s.orgAccount(ctx, org)
	if err != nil {
		return err
	}
	if err := s.Can(ctx, actor, ActSettings, o); err != nil {
		return err
	}
	if err := s.CheckDashboardOrg(actor, o); err != nil {
		return err
	}
	if on && !actor.RequireSecondFactor {
		return Errorf(Conflict, "turn your own second factor on first (Account page): the requirement applies to you too")
	}
	if err := SetRequireSecondFactor(ctx, s.store, o.ID, on); err != nil {
		return err
	}
	state := "off"
	if on {
		state = "on"
	}
	s.emit(ctx, Event{Action: ActionSecondFactor, Actor: actor.Username, Message: actor.Username + " turned " + o.Username + "'s second factor requirement " + state})
	return nil
}

// CheckDashboardOrg refuses a member of org without a second factor when
// org requires one of those who manage it from the dashboard. API tokens
// are not asked: a token is its own credential, scoped by its maker.
func (s *Service) CheckDashboardOrg(actor, org *Account) error {
	if !org.RequireSecondFactor || actor.RequireSecondFactor {
		return nil
	}
	return &Error{Code: Forbidden, Reason: "second_factor_required",
		Message: "the organisation " + org.Username + " requires a second factor of the members who manage it in the dashboard: turn on \"Require a passkey after the password\" on your Account page"}
}

// randomFrom is n characters of alphabet (at most 256 long, a power of
// two dividing 256), each equally likely.
func randomFrom(alphabet string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails on supported platforms
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}
