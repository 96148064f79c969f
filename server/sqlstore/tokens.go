package sqlstore

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

const tokenColumns = `id, account_id, name, hash, created_at, last_used_at, expires_at, revoked_at, scopes, packages, ci, trusted_publishers`

func scanToken(row scanner, extra ...any) (*registry.Token, error) {
	var t registry.Token
	var lastUsed, expires, revoked sql.NullTime
	var scopes, packages, ci, via sql.NullString
	if err := row.Scan(append([]any{&t.ID, &t.AccountID, &t.Name, &t.Hash, &t.CreatedAt, &lastUsed, &expires, &revoked, &scopes, &packages, &ci, &via}, extra...)...); err != nil {
		return nil, err
	}
	for _, w := range splitWords(via) {
		id, err := strconv.ParseInt(w, 10, 64)
		if err != nil {
			return nil, err
		}
		t.TrustedPublishers = append(t.TrustedPublishers, id)
	}
	var err error
	if t.CI, err = parseCI(ci); err != nil {
		return nil, err
	}
	t.CreatedAt = t.CreatedAt.UTC()
	t.LastUsedAt, t.ExpiresAt, t.RevokedAt = timePtr(lastUsed), timePtr(expires), timePtr(revoked)
	if words := splitWords(scopes); words != nil {
		t.Scopes = make([]registry.Scope, len(words))
		for i, w := range words {
			t.Scopes[i] = registry.Scope(w)
		}
	}
	t.Packages = splitWords(packages)
	return &t, nil
}

// Scopes and package globs are stored as words separated by single spaces
// (neither can hold a space); NULL is nil (every scope, every pack) and ”
// an empty list. See migrations/*/0004_token_scopes.sql.
func splitWords(s sql.NullString) []string {
	if !s.Valid {
		return nil
	}
	words := strings.Fields(s.String)
	if words == nil {
		words = []string{}
	}
	return words
}

func joinWords[T ~string](words []T) any {
	if words == nil {
		return nil
	}
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = string(w)
	}
	return strings.Join(parts, " ")
}

// CreateToken stores t and sets t.ID. NotFound when the account does not
// exist; Conflict when the hash is stored already.
func (s *Store) CreateToken(ctx context.Context, t *registry.Token) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	return s.fault("create token", s.insertToken(ctx, s.write, t))
}

func (t *txn) InsertToken(tok *registry.Token) error {
	return t.s.insertToken(t.ctx, t.tx, tok)
}

// insertToken inserts t and sets t.ID, on db (the write pool or a
// transaction).
func (s *Store) insertToken(ctx context.Context, db interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, t *registry.Token) error {
	t.CreatedAt = dbTime(t.CreatedAt)
	var via any
	if t.TrustedPublishers != nil {
		words := make([]string, len(t.TrustedPublishers))
		for i, id := range t.TrustedPublishers {
			words[i] = strconv.FormatInt(id, 10)
		}
		via = strings.Join(words, " ")
	}
	err := db.QueryRowContext(ctx, s.q(`INSERT INTO tokens (account_id, name, hash, created_at, last_used_at, expires_at, revoked_at, scopes, packages, ci,
trusted_publishers) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
		t.AccountID, t.Name, t.Hash, t.CreatedAt, nullTime(t.LastUsedAt), nullTime(t.ExpiresAt), nullTime(t.RevokedAt),
		joinWords(t.Scopes), joinWords(t.Packages), ciJSON(t.CI), via).Scan(&t.ID)
	switch {
	case err == nil:
		return nil
	case s.dialect.isForeignKeyViolation(err):
		return notFound("no such account %d", t.AccountID)
	case s.dialect.isUniqueViolation(err):
		return conflict("a token with this hash exists already")
	}
	return err
}

// TokenHolder finds a token by its hash, revoked or expired ones included
// (the caller decides with Token.Active), with its account, read in the
// same statement: every request with a token needs both.
func (s *Store) TokenHolder(ctx context.Context, hash []byte) (*registry.Token, *registry.Account, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var a registry.Account
	var disabled sql.NullTime
	t, err := scanToken(s.read.QueryRowContext(ctx, s.q(`SELECT `+prefixed("t.", tokenColumns)+`, `+prefixed("a.", accountColumns)+`
FROM tokens t JOIN accounts a ON a.id = t.account_id WHERE t.hash = ?`), hash), accountDest(&a, &disabled)...)
	if errNoRows(err) {
		return nil, nil, notFound("no such token")
	}
	if err != nil {
		return nil, nil, s.fault("read token", err)
	}
	finishAccount(&a, disabled)
	return t, &a, nil
}

// TokenByID finds a token by its id, revoked or expired ones included.
func (s *Store) TokenByID(ctx context.Context, id int64) (*registry.Token, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	t, err := scanToken(s.read.QueryRowContext(ctx, s.q(`SELECT `+tokenColumns+` FROM tokens WHERE id = ?`), id))
	if errNoRows(err) {
		return nil, notFound("no token with id %d", id)
	}
	if err != nil {
		return nil, s.fault("read token", err)
	}
	return t, nil
}

// activeToken is the condition of a token active at a time (one
// placeholder); registry.Token.Active says the same in Go.
const activeToken = `revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)`

// ListTokens lists a page of an account's tokens, newest first, by the
// index on (account_id, id) (migrations/*/0016_token_bounds.sql).
func (s *Store) ListTokens(ctx context.Context, accountID int64, f registry.TokenFilter) ([]registry.Token, error) {
	query := `SELECT ` + tokenColumns + ` FROM tokens WHERE account_id = ?`
	args := []any{accountID}
	if f.Before > 0 {
		query += ` AND id < ?`
		args = append(args, f.Before)
	}
	if f.ActiveAt != nil {
		query += ` AND ` + activeToken
		args = append(args, dbTime(*f.ActiveAt))
	}
	query += ` ORDER BY id DESC`
	if f.Limit > 0 {
		query += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	return queryList(ctx, s, "list tokens", 0, func(row scanner) (*registry.Token, error) { return scanToken(row) }, query, args...)
}

// CountActiveTokens counts an account's active tokens, exchanged ones or
// the others, in SQL.
func (s *Store) CountActiveTokens(ctx context.Context, accountID int64, exchanged bool, now time.Time) (int, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	kind := `ci IS NULL`
	if exchanged {
		kind = `ci IS NOT NULL`
	}
	var n int
	err := s.read.QueryRowContext(ctx, s.q(`SELECT count(*) FROM tokens WHERE account_id = ? AND `+kind+` AND `+activeToken),
		accountID, dbTime(now)).Scan(&n)
	return n, s.fault("count tokens", err)
}

// PruneTokens deletes up to limit tokens that expired or were revoked
// before the given time and that no version names (versions.token_id, by
// its index of 0016): published_by keeps its token.
func (s *Store) PruneTokens(ctx context.Context, before time.Time, limit int) (int64, error) {
	var n int64
	err := s.transact(ctx, "prune tokens", func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM tokens WHERE id IN (SELECT t.id FROM tokens t
WHERE (t.expires_at < ? OR t.revoked_at < ?) AND NOT EXISTS (SELECT 1 FROM versions v WHERE v.token_id = t.id)
LIMIT ?)`), dbTime(before), dbTime(before), limit)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

// RevokeToken revokes one of accountID's tokens. Revoking a revoked token
// succeeds and keeps the first revocation time.
func (s *Store) RevokeToken(ctx context.Context, accountID, tokenID int64, at time.Time) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	res, err := s.write.ExecContext(ctx, s.q(`UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?)
WHERE id = ? AND account_id = ?`), dbTime(at), tokenID, accountID)
	return s.oneRow(res, err, "revoke token", func() error { return notFound("no such token %d", tokenID) })
}

// TouchToken records when a token was last used.
func (s *Store) TouchToken(ctx context.Context, tokenID int64, at time.Time) error {
	return s.touch(ctx, `UPDATE tokens SET last_used_at = ? WHERE id = ?`, dbTime(at), tokenID, "touch token",
		func() error { return notFound("no such token %d", tokenID) })
}

// touch runs an UPDATE of one row's last-used time. On SQLite it joins the
// shared transactions of concurrent publishes instead of paying an fsync of
// its own.
func (s *Store) touch(ctx context.Context, query string, at time.Time, id int64, op string, missing func() error) error {
	if s.group == nil {
		ctx, cancel := s.deadline(ctx)
		defer cancel()
		res, err := s.write.ExecContext(ctx, s.q(query), at, id)
		return s.oneRow(res, err, op, missing)
	}
	var rowErr error // already in the Store's terms
	err := s.group.do(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(query), at, id)
		rowErr = s.oneRow(res, err, op, missing)
		return rowErr
	})
	if rowErr != nil {
		return rowErr
	}
	return s.fault(op, err)
}

// oneRow checks that an UPDATE or DELETE found its row. Both engines count
// matched rows, changed or not.
func (s *Store) oneRow(res sql.Result, err error, op string, missing func() error) error {
	if err != nil {
		return s.fault(op, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return s.fault(op, err)
	}
	if n == 0 {
		return missing()
	}
	return nil
}
