package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

const accountColumns = `id, email, username, password_hash, created_at, disabled_at, kind, display_name, require_second_factor`

func scanAccount(row scanner, extra ...any) (*registry.Account, error) {
	var a registry.Account
	var disabled sql.NullTime
	if err := row.Scan(append(accountDest(&a, &disabled), extra...)...); err != nil {
		return nil, err
	}
	finishAccount(&a, disabled)
	return &a, nil
}

// accountDest are the destinations of accountColumns; finishAccount
// completes a after the scan.
func accountDest(a *registry.Account, disabled *sql.NullTime) []any {
	return []any{&a.ID, &a.Email, &a.Username, &a.PasswordHash, &a.CreatedAt, disabled, &a.Kind, &a.DisplayName, &a.RequireSecondFactor}
}

func finishAccount(a *registry.Account, disabled sql.NullTime) {
	a.CreatedAt = a.CreatedAt.UTC()
	a.DisabledAt = timePtr(disabled)
}

// prefixed qualifies each of a list of columns with prefix ("t.").
func prefixed(prefix, columns string) string {
	parts := strings.Split(columns, ", ")
	for i, c := range parts {
		parts[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
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

// ListAccounts lists a page of accounts by id with counts of what each
// holds; each count is one indexed lookup per account.
func (s *Store) ListAccounts(ctx context.Context, f registry.AccountFilter) ([]registry.AccountSummary, error) {
	now := dbTime(f.Now)
	scan := func(row scanner) (*registry.AccountSummary, error) {
		var sum registry.AccountSummary
		a, err := scanAccount(row, &sum.ActiveTokens, &sum.SSHKeys, &sum.Packages, &sum.Sessions)
		if err != nil {
			return nil, err
		}
		sum.Account = *a
		return &sum, nil
	}
	return queryList(ctx, s, "list accounts", f.Limit, scan, `SELECT `+prefixed("a.", accountColumns)+`,
  (SELECT count(*) FROM tokens t WHERE t.account_id = a.id AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > ?)),
  (SELECT count(*) FROM ssh_keys k WHERE k.account_id = a.id),
  (SELECT count(*) FROM packages p WHERE p.owner_id = a.id),
  (SELECT count(*) FROM sessions x WHERE x.account_id = a.id AND x.expires_at > ?)
FROM accounts a WHERE a.id > ? ORDER BY a.id LIMIT ?`, now, now, f.AfterID, f.Limit)
}

// SetPasswordHash replaces an account's password hash.
func (s *Store) SetPasswordHash(ctx context.Context, accountID int64, hash string) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	res, err := s.write.ExecContext(ctx, s.q(`UPDATE accounts SET password_hash = ? WHERE id = ?`), hash, accountID)
	return s.oneRow(res, err, "set password", func() error { return notFound("no such account %d", accountID) })
}

// SetAccountDisabled disables (at set) or enables (at nil) an account; a
// second disabling keeps the first time.
func (s *Store) SetAccountDisabled(ctx context.Context, accountID int64, at *time.Time) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	query, args := `UPDATE accounts SET disabled_at = NULL WHERE id = ?`, []any{accountID}
	if at != nil {
		query, args = `UPDATE accounts SET disabled_at = COALESCE(disabled_at, ?) WHERE id = ?`, []any{dbTime(*at), accountID}
	}
	res, err := s.write.ExecContext(ctx, s.q(query), args...)
	return s.oneRow(res, err, "disable account", func() error { return notFound("no such account %d", accountID) })
}
