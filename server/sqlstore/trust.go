package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

// Trusted publishers and spent ID token jtis (migrations/*/0008_trusted_publishers.sql).

const trustedPublisherColumns = `id, account_id, issuer, packages, claims, created_at`

func scanTrustedPublisher(row scanner) (*registry.TrustedPublisher, error) {
	var p registry.TrustedPublisher
	var packages, claims string
	if err := row.Scan(&p.ID, &p.AccountID, &p.Issuer, &packages, &claims, &p.CreatedAt); err != nil {
		return nil, err
	}
	p.CreatedAt = p.CreatedAt.UTC()
	p.Packages = strings.Fields(packages)
	if err := json.Unmarshal([]byte(claims), &p.Claims); err != nil {
		return nil, err
	}
	return &p, nil
}

// CreateTrustedPublisher stores p and sets p.ID. NotFound when the account
// does not exist.
func (s *Store) CreateTrustedPublisher(ctx context.Context, p *registry.TrustedPublisher) error {
	p.CreatedAt = dbTime(p.CreatedAt)
	claims, err := json.Marshal(p.Claims)
	if err != nil {
		return err
	}
	err = s.writeTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, s.q(`SELECT 1 FROM accounts WHERE id = ?`), p.AccountID).Scan(&one)
		if errNoRows(err) {
			return notFound("no such account %d", p.AccountID)
		}
		if err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, s.q(`INSERT INTO trusted_publishers (account_id, issuer, packages, claims, created_at)
VALUES (?, ?, ?, ?, ?) RETURNING id`), p.AccountID, p.Issuer, strings.Join(p.Packages, " "), string(claims), p.CreatedAt).Scan(&p.ID)
	})
	if err != nil && s.dialect.isForeignKeyViolation(err) {
		return notFound("no such account %d", p.AccountID)
	}
	return s.fault("create trusted publisher", err)
}

// ListTrustedPublishers lists an account's trusted publishers, oldest first.
func (s *Store) ListTrustedPublishers(ctx context.Context, accountID int64) ([]registry.TrustedPublisher, error) {
	return queryList(ctx, s, "list trusted publishers", 0, scanTrustedPublisher,
		`SELECT `+trustedPublisherColumns+` FROM trusted_publishers WHERE account_id = ? ORDER BY id`, accountID)
}

// TrustedPublishersByIssuer lists the trusted publishers of one issuer,
// oldest first.
func (s *Store) TrustedPublishersByIssuer(ctx context.Context, issuer string) ([]registry.TrustedPublisher, error) {
	return queryList(ctx, s, "list trusted publishers", 0, scanTrustedPublisher,
		`SELECT `+trustedPublisherColumns+` FROM trusted_publishers WHERE issuer = ? ORDER BY id`, issuer)
}

// DeleteTrustedPublisher deletes one of accountID's trusted publishers.
func (s *Store) DeleteTrustedPublisher(ctx context.Context, accountID, id int64) error {
	err := s.writeTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM trusted_publishers WHERE id = ? AND account_id = ?`), id, accountID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return notFound("no trusted publisher %d", id)
		}
		return nil
	})
	return s.fault("delete trusted publisher", err)
}

// SpendJTI records an exchanged ID token's jti until it expires, and
// forgets the jtis that expired before now. ON CONFLICT DO NOTHING (both
// engines) keeps a reuse from aborting a shared group-commit transaction.
func (s *Store) SpendJTI(ctx context.Context, issuer, jti string, expiresAt, now time.Time) error {
	err := s.writeTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return s.spendJTI(ctx, tx, registry.JTISpend{Issuer: issuer, JTI: jti, ExpiresAt: expiresAt, Now: now})
	})
	return s.fault("spend jti", err)
}

// spendJTI is SpendJTI in tx.
func (s *Store) spendJTI(ctx context.Context, tx *sql.Tx, j registry.JTISpend) error {
	if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM oidc_jtis WHERE expires_at < ?`), dbTime(j.Now)); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, s.q(`INSERT INTO oidc_jtis (issuer, jti, expires_at) VALUES (?, ?, ?)
ON CONFLICT (issuer, jti) DO NOTHING`), j.Issuer, j.JTI, dbTime(j.ExpiresAt))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return registry.ErrJTIReused
	}
	return nil
}

// ciJSON stores a CI identity as a JSON object; nil is NULL.
func ciJSON(ci *registry.CIIdentity) any {
	if ci == nil {
		return nil
	}
	text, err := json.Marshal(ci)
	if err != nil {
		return nil
	}
	return string(text)
}

func parseCI(s sql.NullString) (*registry.CIIdentity, error) {
	if !s.Valid {
		return nil, nil
	}
	var ci registry.CIIdentity
	if err := json.Unmarshal([]byte(s.String), &ci); err != nil {
		return nil, err
	}
	return &ci, nil
}
