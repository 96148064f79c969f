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

// Who made a trusted publisher and until when it lasts came later
// (migrations/*/0014_grants_within_their_maker.sql).
const trustedPublisherColumns = `id, account_id, issuer, packages, claims, created_at, expires_at, created_by, created_by_token`

// trustedPublisherSelect reads trusted publishers (alias p) with the
// username of their maker.
const trustedPublisherSelect = `SELECT p.id, p.account_id, p.issuer, p.packages, p.claims, p.created_at, p.expires_at, p.created_by,
p.created_by_token, m.username FROM trusted_publishers p LEFT JOIN accounts m ON m.id = p.created_by`

func scanTrustedPublisher(row scanner) (*registry.TrustedPublisher, error) {
	var p registry.TrustedPublisher
	var packages, claims string
	var expires sql.NullTime
	var makerID, makerToken sql.NullInt64
	var makerName sql.NullString
	if err := row.Scan(&p.ID, &p.AccountID, &p.Issuer, &packages, &claims, &p.CreatedAt, &expires, &makerID, &makerToken, &makerName); err != nil {
		return nil, err
	}
	p.CreatedAt = p.CreatedAt.UTC()
	p.ExpiresAt = timePtr(expires)
	p.Packages = strings.Fields(packages)
	if err := json.Unmarshal([]byte(claims), &p.Claims); err != nil {
		return nil, err
	}
	if makerID.Valid {
		p.CreatedBy = &registry.Maker{AccountID: makerID.Int64, Username: makerName.String, TokenID: makerToken.Int64}
	}
	return &p, nil
}

// makerColumns are the created_by and created_by_token of p.
func makerColumns(p *registry.TrustedPublisher) (any, any) {
	if p.CreatedBy == nil {
		return nil, nil
	}
	var token any
	if p.CreatedBy.TokenID != 0 {
		token = p.CreatedBy.TokenID
	}
	return p.CreatedBy.AccountID, token
}

// ListTrustedPublishers lists an account's trusted publishers, oldest first.
func (s *Store) ListTrustedPublishers(ctx context.Context, accountID int64) ([]registry.TrustedPublisher, error) {
	return queryList(ctx, s, "list trusted publishers", 0, scanTrustedPublisher,
		trustedPublisherSelect+` WHERE p.account_id = ? ORDER BY p.id`, accountID)
}

// TrustedPublishersByIssuer lists the trusted publishers of one issuer,
// oldest first.
func (s *Store) TrustedPublishersByIssuer(ctx context.Context, issuer string) ([]registry.TrustedPublisher, error) {
	return queryList(ctx, s, "list trusted publishers", 0, scanTrustedPublisher,
		trustedPublisherSelect+` WHERE p.issuer = ? ORDER BY p.id`, issuer)
}

// DeleteTrustedPublisher deletes one of accountID's trusted publishers.
func (s *Store) DeleteTrustedPublisher(ctx context.Context, accountID, id int64) error {
	return s.transact(ctx, "delete trusted publisher", func(ctx context.Context, tx *sql.Tx) error {
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
}

func (t *txn) HasTrustedPublisher(accountID, id int64) (bool, error) {
	return t.exists(`SELECT 1 FROM trusted_publishers WHERE id = ? AND account_id = ?`, id, accountID)
}

func (t *txn) DeleteExpiredJTIs(at time.Time) error {
	_, err := t.exec(`DELETE FROM oidc_jtis WHERE expires_at < ?`, dbTime(at))
	return err
}

// SpendJTI inserts with ON CONFLICT DO NOTHING (both engines), so a jti
// spent already is an answer and never aborts a shared group-commit
// transaction.
func (t *txn) SpendJTI(issuer, jti string, expiresAt time.Time) (bool, error) {
	res, err := t.exec(`INSERT INTO oidc_jtis (issuer, jti, expires_at) VALUES (?, ?, ?)
ON CONFLICT (issuer, jti) DO NOTHING`, issuer, jti, dbTime(expiresAt))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
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
