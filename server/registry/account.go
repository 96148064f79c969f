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

// MinPasswordLength is the shortest password accepted.
const MinPasswordLength = 8

// CreateAccount validates and stores a new account with a hashed password.
func (s *Service) CreateAccount(ctx context.Context, email, username, password string) (*Account, error) {
	u, err := NormalizeUsername(username)
	if err != nil {
		return nil, err
	}
	email = strings.TrimSpace(email)
	if err := checkLabel("email", email, 320, false); err != nil {
		return nil, err
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || addr.Name != "" {
		return nil, Errorf(Invalid, "email %q is not a valid address", email)
	}
	if len(password) < MinPasswordLength {
		return nil, Errorf(Invalid, "password must be at least %d characters", MinPasswordLength)
	}
	if len(password) > 1024 {
		return nil, Errorf(Invalid, "password must be at most 1024 characters")
	}
	hash, err := HashPassword(password)
	if err != nil {
		return nil, err
	}
	a := &Account{Email: email, Username: u, PasswordHash: hash, CreatedAt: s.now()}
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
	if acct == nil || acct.PasswordHash == "" {
		CheckPassword(dummyHash, password)
		return nil, fail
	}
	if !CheckPassword(acct.PasswordHash, password) {
		return nil, fail
	}
	return acct, nil
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

// argon2id parameters (OWASP's recommendation: 19 MiB, 2 passes, 1 lane).
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
)

var dummyHash, _ = HashPassword("pact-dummy-password-for-timing")

// HashPassword returns an encoded argon2id hash with a random salt.
func HashPassword(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
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
