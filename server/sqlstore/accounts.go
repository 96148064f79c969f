package sqlstore

import (
	"context"

	"github.com/pact-registry/pact/server/registry"
)

const accountColumns = `id, email, username, password_hash, created_at`

func scanAccount(row scanner) (*registry.Account, error) {
	var a registry.Account
	if err := row.Scan(&a.ID, &a.Email, &a.Username, &a.PasswordHash, &a.CreatedAt); err != nil {
		return nil, err
	}
	a.CreatedAt = a.CreatedAt.UTC()
	return &a, nil
}

// CreateAccount stores a and sets a.ID. Usernames and emails are unique
// regardless of case; both are stored as given.
func (s *Store) CreateAccount(ctx context.Context, a *registry.Account) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	a.CreatedAt = dbTime(a.CreatedAt)
	err := s.write.QueryRowContext(ctx, s.q(`INSERT INTO accounts (email, username, password_hash, created_at)
VALUES (?, ?, ?, ?) RETURNING id`), a.Email, a.Username, a.PasswordHash, a.CreatedAt).Scan(&a.ID)
	if err != nil && s.dialect.isUniqueViolation(err) {
		return s.accountConflict(ctx, a)
	}
	return s.fault("create account", err)
}

// accountConflict says which of username and email is taken.
func (s *Store) accountConflict(ctx context.Context, a *registry.Account) error {
	var taken int
	err := s.write.QueryRowContext(ctx, s.q(`SELECT count(*) FROM accounts WHERE lower(username) = lower(?)`), a.Username).Scan(&taken)
	if err != nil {
		return s.fault("create account", err)
	}
	if taken > 0 {
		return conflict("username %s is taken", a.Username)
	}
	return conflict("an account with email %s exists already", a.Email)
}

func (s *Store) AccountByID(ctx context.Context, id int64) (*registry.Account, error) {
	return s.account(ctx, `id = ?`, id, func() error { return notFound("no such account %d", id) })
}

// AccountByUsername ignores case.
func (s *Store) AccountByUsername(ctx context.Context, username string) (*registry.Account, error) {
	return s.account(ctx, `lower(username) = lower(?)`, username, func() error { return notFound("no such user %s", username) })
}

// AccountByEmail ignores case.
func (s *Store) AccountByEmail(ctx context.Context, email string) (*registry.Account, error) {
	return s.account(ctx, `lower(email) = lower(?)`, email, func() error { return notFound("no account with email %s", email) })
}

func (s *Store) account(ctx context.Context, where string, arg any, missing func() error) (*registry.Account, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	a, err := scanAccount(s.read.QueryRowContext(ctx, s.q(`SELECT `+accountColumns+` FROM accounts WHERE `+where), arg))
	if errNoRows(err) {
		return nil, missing()
	}
	if err != nil {
		return nil, s.fault("read account", err)
	}
	return a, nil
}
