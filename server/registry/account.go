package registry

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/mail"
	"regexp"
	"strings"

	"golang.org/x/crypto/argon2"
)

// reservedUsernames would shadow a route of the web side or the API.
var reservedUsernames = map[string]bool{
	"api": true, "raw": true, "docs": true, "login": true, "logout": true, "signup": true,
	"dashboard": true, "static": true, "assets": true, "metrics": true, "healthz": true,
	"readyz": true, "admin": true, "openapi.json": true, "openapi": true, "settings": true,
	"account": true, "new": true, "search": true, "about": true, "help": true, "www": true,
	"root": true, "pact": true, "log": true, "favicon.ico": true, "robots.txt": true, "keys": true,
}

var usernamePattern = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,37}[a-z0-9])?$`)

// NormalizeUsername case-folds a username and checks its rules (docs/protocol.md,
// Usernames): 1-39 of [a-z0-9-], no leading or trailing '-', not reserved.
func NormalizeUsername(name string) (string, error) {
	u := strings.ToLower(strings.TrimSpace(name))
	if !usernamePattern.MatchString(u) {
		return "", Errorf(Invalid, "username %q is not valid: use 1-39 of a-z, 0-9 and '-', not starting or ending with '-'", name)
	}
	if reservedUsernames[u] {
		return "", Errorf(Invalid, "username %q is reserved", u)
	}
	return u, nil
}

// FieldProblem is what is wrong with one field of a form.
type FieldProblem struct {
	Field string // username, email or password
	Err   error
}

// NewAccountProblems is everything CreateAccount would refuse in a sign-up
// before it looks at the accounts there are, one problem a field at most,
// so a form can say all of them at once. CreateAccount refuses with the
// first: username, email, password.
func NewAccountProblems(email, username, password string) []FieldProblem {
	var problems []FieldProblem
	if _, err := NormalizeUsername(username); err != nil {
		problems = append(problems, FieldProblem{"username", err})
	}
	email = strings.TrimSpace(email)
	if err := checkLabel("email", email, 320, false); err != nil {
		problems = append(problems, FieldProblem{"email", err})
	} else if addr, err := mail.ParseAddress(email); err != nil || addr.Address != email || addr.Name != "" {
		problems = append(problems, FieldProblem{"email", Errorf(Invalid, "email %q is not a valid address", email)})
	}
	if err := checkPasswordRules(password); err != nil {
		problems = append(problems, FieldProblem{"password", err})
	}
	return problems
}

// MinPasswordLength is the shortest password accepted.
const MinPasswordLength = 8

// CreateAccount validates and stores a new account with a hashed password.
func (s *Service) CreateAccount(ctx context.Context, email, username, password string) (*Account, error) {
	if problems := NewAccountProblems(email, username, password); len(problems) > 0 {
		return nil, problems[0].Err
	}
	u, err := NormalizeUsername(username)
	if err != nil {
		return nil, err
	}
	email = strings.TrimSpace(email)
	hash, err := s.newPasswordHash(password)
	if err != nil {
		return nil, err
	}
	a := &Account{Email: email, Username: u, PasswordHash: hash, CreatedAt: s.now(), Kind: KindUser}
	if err := s.store.CreateAccount(ctx, a); err != nil {
		return nil, err
	}
	return a, nil
}

// Login checks a username (or email) and password. Unknown users cost the
// same argon2 work as known ones, so timing does not reveal which exist.
func (s *Service) Login(ctx context.Context, login, password string) (*Account, error) {
	fail := Errorf(Unauthorized, "wrong username or password")
	var acct *Account
	var err error
	acct, err = s.AccountByLogin(ctx, login)
	if err != nil && !IsCode(err, NotFound) {
		return nil, err
	}
	if acct == nil || acct.PasswordHash == "" || acct.IsOrg() {
		s.checkPassword(s.dummyHash(), password)
		return nil, fail
	}
	if !s.checkPassword(acct.PasswordHash, password) {
		return nil, fail
	}
	// Said only after the password held, so it tells a guesser nothing.
	if err := checkAccountEnabled(acct); err != nil {
		return nil, err
	}
	return acct, nil
}

// newPasswordHash checks a new password against the rules of sign-up and
// hashes it at the service's cost.
func (s *Service) newPasswordHash(password string) (string, error) {
	if err := checkPasswordRules(password); err != nil {
		return "", err
	}
	return s.passwordCost.hash(password)
}

// checkPasswordRules checks a new password's length.
func checkPasswordRules(password string) error {
	if len(password) < MinPasswordLength {
		return Errorf(Invalid, "password must be at least %d characters", MinPasswordLength)
	}
	if len(password) > MaxPasswordLength {
		return Errorf(Invalid, "password must be at most %d characters", MaxPasswordLength)
	}
	return nil
}

// MaxPasswordLength bounds what is hashed.
const MaxPasswordLength = 1024

// checkAccountEnabled refuses a disabled account, whatever credential (a
// token, an SSH signature, a password) named it; the one check of
// disabled accounts (docs/protocol.md, Disabled accounts).
func checkAccountEnabled(acct *Account) error {
	if acct.DisabledAt == nil {
		return nil
	}
	return &Error{Code: Forbidden, Reason: "account_disabled",
		Message: "the account " + acct.Username + " is disabled: its log-ins, tokens and signed publishes are refused; ask the registry's operator"}
}

// ChangePassword sets a new password for acct when current is its password
// now, and ends every other session of the account than keepSessionID, so
// whoever learnt the old password is logged out. Unauthorized when current
// is wrong; the new password follows the rules of sign-up.
func (s *Service) ChangePassword(ctx context.Context, acct *Account, current, password string, keepSessionID int64) (ended int64, err error) {
	if acct.PasswordHash == "" || !s.checkPassword(acct.PasswordHash, current) {
		return 0, Errorf(Unauthorized, "the current password is wrong")
	}
	return s.setPassword(ctx, acct.ID, password, keepSessionID)
}

// SetPassword sets a new password for the account named username, by the
// operator (pactd user passwd), and ends every session of the account.
func (s *Service) SetPassword(ctx context.Context, username, password string) (*Account, int64, error) {
	acct, err := s.AccountByUsername(ctx, username)
	if err != nil {
		return nil, 0, err
	}
	if err := checkUser(acct); err != nil {
		return nil, 0, err
	}
	ended, err := s.setPassword(ctx, acct.ID, password, 0)
	return acct, ended, err
}

func (s *Service) setPassword(ctx context.Context, accountID int64, password string, keepSessionID int64) (int64, error) {
	hash, err := s.newPasswordHash(password)
	if err != nil {
		return 0, err
	}
	if err := s.store.SetPasswordHash(ctx, accountID, hash); err != nil {
		return 0, err
	}
	return s.store.DeleteAccountSessions(ctx, accountID, keepSessionID)
}

// DisableAccount disables the account named username and ends its
// sessions; its tokens and SSH keys stay, refused until EnableAccount.
// Disabling a disabled account changes nothing but ending sessions.
func (s *Service) DisableAccount(ctx context.Context, username string) (*Account, int64, error) {
	acct, err := s.AccountByUsername(ctx, username)
	if err != nil {
		return nil, 0, err
	}
	now := s.now()
	if err := s.store.SetAccountDisabled(ctx, acct.ID, &now); err != nil {
		return nil, 0, err
	}
	ended, err := s.store.DeleteAccountSessions(ctx, acct.ID, 0)
	if err != nil {
		return nil, 0, err
	}
	acct, err = s.store.AccountByID(ctx, acct.ID)
	return acct, ended, err
}

// EnableAccount enables the account named username again: its tokens and
// SSH keys work again, and it may log in.
func (s *Service) EnableAccount(ctx context.Context, username string) (*Account, error) {
	acct, err := s.AccountByUsername(ctx, username)
	if err != nil {
		return nil, err
	}
	if err := s.store.SetAccountDisabled(ctx, acct.ID, nil); err != nil {
		return nil, err
	}
	acct.DisabledAt = nil
	return acct, nil
}

// ListAccounts lists up to limit accounts with an id above afterID, by id,
// with counts of what each holds, for the operator.
func (s *Service) ListAccounts(ctx context.Context, afterID int64, limit int) ([]AccountSummary, error) {
	if limit < 1 || limit > 1000 {
		return nil, Errorf(Invalid, "limit must be between 1 and 1000")
	}
	return s.store.ListAccounts(ctx, AccountFilter{AfterID: afterID, Limit: limit, Now: s.now()})
}

// AccountByUsername returns the account named username, in any case.
func (s *Service) AccountByUsername(ctx context.Context, username string) (*Account, error) {
	return s.store.AccountByUsername(ctx, strings.ToLower(strings.TrimSpace(username)))
}

// AccountByLogin returns the account a log-in names: by email address when
// login holds an @, by username otherwise.
func (s *Service) AccountByLogin(ctx context.Context, login string) (*Account, error) {
	if strings.Contains(login, "@") {
		return s.store.AccountByEmail(ctx, strings.TrimSpace(login))
	}
	return s.AccountByUsername(ctx, login)
}

// PasswordCost is argon2id's cost for the hash of a new password: memory
// in KiB and passes, over one lane. A hash is checked at the cost written
// in it, so a registry whose cost changes still logs every account in.
type PasswordCost struct {
	MemoryKiB uint32
	Passes    uint32
}

// DefaultPasswordCost is OWASP's recommendation for argon2id: 19 MiB, 2
// passes, 1 lane. pactd always hashes at it; only tests lower it
// (Options.PasswordCost).
var DefaultPasswordCost = PasswordCost{MemoryKiB: 19 * 1024, Passes: 2}

const (
	argonThreads = 1
	argonKeyLen  = 32
)

// HashPassword returns an encoded argon2id hash, at DefaultPasswordCost,
// with a random salt.
func HashPassword(password string) (string, error) {
	return DefaultPasswordCost.hash(password)
}

func (c PasswordCost) hash(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, c.Passes, c.MemoryKiB, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, c.MemoryKiB, c.Passes, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// CheckPassword reports whether password matches an encoded argon2id hash.
func CheckPassword(encoded, password string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var version int
	var memory, time uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &time, &threads); err != nil {
		return false
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, time, memory, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// hashSecret is how tokens and session ids are stored: SHA-256 only, since
// they carry 238+ bits of randomness a slow hash would add nothing to.
func hashSecret(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}
