package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

// Webhooks and their queue of deliveries (registry.HookStore). A delivery
// is queued by the domain in the transaction of its event, through the
// rows of Tx (HooksOf, InsertDelivery), so it exists iff the event
// committed. Workers claim due deliveries by moving their next
// attempt past a lease: on PostgreSQL with FOR UPDATE SKIP LOCKED, so
// replicas claiming at once never take the same row; on SQLite the one
// writer serialises them.

const hookColumns = `h.id, h.owner_id, a.username, h.package, h.url, h.secret, h.events, h.created_by, h.created_at,
h.failing_since, h.disabled_at, h.disabled_note, h.slow_answers`

const hookFrom = ` FROM hooks h JOIN accounts a ON a.id = h.owner_id`

func scanHook(row scanner, extra ...any) (*registry.Hook, error) {
	var h registry.Hook
	var events string
	var failing, disabled sql.NullTime
	if err := row.Scan(append([]any{&h.ID, &h.OwnerID, &h.Owner, &h.Package, &h.URL, &h.Secret, &events, &h.CreatedBy,
		&h.CreatedAt, &failing, &disabled, &h.DisabledNote, &h.SlowAnswers}, extra...)...); err != nil {
		return nil, err
	}
	h.Events = strings.Fields(events)
	h.CreatedAt = h.CreatedAt.UTC()
	h.FailingSince, h.DisabledAt = timePtr(failing), timePtr(disabled)
	return &h, nil
}

const deliveryColumns = `d.id, d.hook_id, d.event, d.kind, d.owner, d.package, d.version, d.log_index, d.message, d.created_at,
d.state, d.attempts, d.next_attempt_at, d.give_up_at, d.last_attempt_at, d.last_status, d.last_duration_ms, d.last_error`

func scanDelivery(row scanner, extra ...any) (*registry.HookDelivery, error) {
	var d registry.HookDelivery
	var index sql.NullInt64
	var last sql.NullTime
	var ms int64
	if err := row.Scan(append([]any{&d.ID, &d.HookID, &d.Event, &d.Kind, &d.Owner, &d.Package, &d.Version, &index, &d.Message,
		&d.CreatedAt, &d.State, &d.Attempts, &d.NextAttemptAt, &d.GiveUpAt, &last, &d.LastStatus, &ms, &d.LastError}, extra...)...); err != nil {
		return nil, err
	}
	if index.Valid {
		d.LogIndex = &index.Int64
	}
	d.CreatedAt, d.NextAttemptAt, d.GiveUpAt = d.CreatedAt.UTC(), d.NextAttemptAt.UTC(), d.GiveUpAt.UTC()
	d.LastAttemptAt = timePtr(last)
	d.LastDuration = time.Duration(ms) * time.Millisecond
	return &d, nil
}

func (t *txn) HooksOf(owner string) ([]registry.Hook, error) {
	return txList(t, func(row scanner) (*registry.Hook, error) { return scanHook(row) },
		`SELECT `+hookColumns+hookFrom+` WHERE lower(a.username) = ? AND h.disabled_at IS NULL ORDER BY h.id`, strings.ToLower(owner))
}

func (t *txn) InsertDelivery(d *registry.HookDelivery) error {
	var logIndex any
	if d.LogIndex != nil {
		logIndex = *d.LogIndex
	}
	return t.queryRow(`INSERT INTO hook_deliveries (hook_id, event, kind, owner, package, version, log_index, message,
created_at, state, next_attempt_at, give_up_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		d.HookID, d.Event, d.Kind, d.Owner, d.Package, d.Version, logIndex, d.Message, dbTime(d.CreatedAt), d.State,
		dbTime(d.NextAttemptAt), dbTime(d.GiveUpAt)).Scan(&d.ID)
}

func (t *txn) CountHooksOf(ownerID int64) (int, error) {
	var n int
	err := t.queryRow(`SELECT count(*) FROM hooks WHERE owner_id = ?`, ownerID).Scan(&n)
	return n, err
}

func (t *txn) CountHooksMadeBy(accountID int64) (int, error) {
	var n int
	err := t.queryRow(`SELECT count(*) FROM hooks WHERE created_by = ?`, accountID).Scan(&n)
	return n, err
}

func (t *txn) InsertHook(h *registry.Hook) error {
	h.CreatedAt = dbTime(h.CreatedAt)
	return t.queryRow(`INSERT INTO hooks (owner_id, package, url, secret, events, created_by, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, h.OwnerID, h.Package, h.URL, h.Secret, strings.Join(h.Events, " "), h.CreatedBy, h.CreatedAt).Scan(&h.ID)
}

// HookByID finds a hook.
func (s *Store) HookByID(ctx context.Context, id int64) (*registry.Hook, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	h, err := scanHook(s.read.QueryRowContext(ctx, s.q(`SELECT `+hookColumns+hookFrom+` WHERE h.id = ?`), id))
	if errNoRows(err) {
		return nil, notFound("no hook %d", id)
	}
	return h, s.fault("read hook", err)
}

// ListHooks lists an owner's hooks, oldest first.
func (s *Store) ListHooks(ctx context.Context, ownerID int64) ([]registry.Hook, error) {
	return queryList(ctx, s, "list hooks", 4, func(r scanner) (*registry.Hook, error) { return scanHook(r) },
		`SELECT `+hookColumns+hookFrom+` WHERE h.owner_id = ? ORDER BY h.id`, ownerID)
}

// DeleteHook deletes a hook and its deliveries.
func (s *Store) DeleteHook(ctx context.Context, id int64) error {
	return s.transact(ctx, "delete hook", func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM hook_deliveries WHERE hook_id = ?`), id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM hooks WHERE id = ?`), id)
		return s.oneRow(res, err, "delete hook", func() error { return notFound("no hook %d", id) })
	})
}

// ListHookDeliveries lists a hook's deliveries, newest first.
func (s *Store) ListHookDeliveries(ctx context.Context, hookID int64, limit int) ([]registry.HookDelivery, error) {
	return queryList(ctx, s, "list hook deliveries", limit, func(r scanner) (*registry.HookDelivery, error) { return scanDelivery(r) },
		`SELECT `+deliveryColumns+` FROM hook_deliveries d WHERE d.hook_id = ? ORDER BY d.id DESC LIMIT ?`, hookID, limit)
}

// RedeliverHook queues a delivery again.
func (s *Store) RedeliverHook(ctx context.Context, hookID, deliveryID int64, next, giveUp time.Time) (*registry.HookDelivery, error) {
	var d *registry.HookDelivery
	err := s.transact(ctx, "redeliver", func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(`UPDATE hook_deliveries SET state = ?, next_attempt_at = ?, give_up_at = ?, leased_until = NULL
WHERE id = ? AND hook_id = ?`), registry.DeliveryPending, dbTime(next), dbTime(giveUp), deliveryID, hookID)
		if err := s.oneRow(res, err, "redeliver", func() error { return notFound("hook %d has no delivery %d", hookID, deliveryID) }); err != nil {
			return err
		}
		d, err = scanDelivery(tx.QueryRowContext(ctx, s.q(`SELECT `+deliveryColumns+` FROM hook_deliveries d WHERE d.id = ?`), deliveryID))
		return err
	})
	return d, err
}

// ClaimHookDeliveries takes due deliveries for a lease, in turns across
// the users who made their hooks; see registry.HookStore.
func (s *Store) ClaimHookDeliveries(ctx context.Context, now, leaseUntil time.Time, limit, perUser int) ([]registry.HookClaim, error) {
	// A read first: an idle queue, the usual case, takes no write
	// transaction (on SQLite, no turn of the one writer) each poll.
	var due int
	rctx, cancel := s.deadline(ctx)
	err := s.read.QueryRowContext(rctx, s.q(`SELECT count(*) FROM (SELECT 1 FROM hook_deliveries WHERE state = ? AND next_attempt_at <= ? LIMIT 1) d`),
		registry.DeliveryPending, dbTime(now)).Scan(&due)
	cancel()
	if err != nil {
		return nil, s.fault("read the hook queue", err)
	}
	if due == 0 {
		return nil, nil
	}
	var claims []registry.HookClaim
	skipLocked := s.dialect.skipLocked()
	err = s.transact(ctx, "claim hook deliveries", func(ctx context.Context, tx *sql.Tx) error {
		claims = claims[:0]
		// turn numbers each user's due deliveries, oldest first; busy
		// counts each user's in flight. The claim takes the deliveries
		// whose turn comes within the user's share left, lowest turn
		// plus busy first: round the users.
		//
		// Replicas claiming at once on PostgreSQL keep the share
		// together, as the statement reads one snapshot: one that does
		// not see another claim's leases still numbers that claim's
		// rows among the turns, and skips them (SKIP LOCKED), or, once
		// that claim has committed, finds them no longer due when it
		// reads them anew to lock them (the locking SELECT's own check).
		// On SQLite the one writer serialises the claims.
		rows, err := tx.QueryContext(ctx, s.q(`UPDATE hook_deliveries SET next_attempt_at = ?, leased_until = ? WHERE id IN (
SELECT id FROM hook_deliveries WHERE id IN (
SELECT due.id FROM (
  SELECT d.id, d.next_attempt_at, h.created_by AS maker,
    row_number() OVER (PARTITION BY h.created_by ORDER BY d.next_attempt_at, d.id) AS turn
  FROM hook_deliveries d JOIN hooks h ON h.id = d.hook_id
  WHERE d.state = ? AND d.next_attempt_at <= ?
  AND (d.log_index IS NULL OR d.log_index < (SELECT tree_size FROM log_tree WHERE id = 1))
) due LEFT JOIN (
  SELECT h.created_by AS maker, count(*) AS n FROM hook_deliveries d JOIN hooks h ON h.id = d.hook_id
  WHERE d.leased_until > ? AND d.state = ? GROUP BY h.created_by
) busy ON busy.maker = due.maker
WHERE due.turn + COALESCE(busy.n, 0) <= ?
ORDER BY due.turn + COALESCE(busy.n, 0), due.next_attempt_at, due.id LIMIT ?)
AND state = ? AND next_attempt_at <= ?`+skipLocked+`) RETURNING id`),
			dbTime(leaseUntil), dbTime(leaseUntil), registry.DeliveryPending, dbTime(now), dbTime(now), registry.DeliveryPending, perUser, limit,
			registry.DeliveryPending, dbTime(now))
		if err != nil {
			return err
		}
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range ids {
			var c registry.HookClaim
			h := &c.Hook
			var events string
			var failing, disabled sql.NullTime
			hookDest := []any{&h.ID, &h.OwnerID, &h.Owner, &h.Package, &h.URL, &h.Secret, &events, &h.CreatedBy,
				&h.CreatedAt, &failing, &disabled, &h.DisabledNote, &h.SlowAnswers}
			d, err := scanDelivery(tx.QueryRowContext(ctx, s.q(`SELECT `+deliveryColumns+`, `+hookColumns+` FROM hook_deliveries d
JOIN hooks h ON h.id = d.hook_id JOIN accounts a ON a.id = h.owner_id WHERE d.id = ?`), id), hookDest...)
			if err != nil {
				return err
			}
			h.Events = strings.Fields(events)
			h.FailingSince, h.DisabledAt = timePtr(failing), timePtr(disabled)
			c.Delivery = *d
			claims = append(claims, c)
		}
		return nil
	})
	return claims, err
}

// PostponeHookDelivery moves a pending delivery's next attempt.
func (s *Store) PostponeHookDelivery(ctx context.Context, deliveryID int64, next time.Time) error {
	return s.transact(ctx, "postpone hook delivery", func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q(`UPDATE hook_deliveries SET next_attempt_at = ?, leased_until = NULL WHERE id = ? AND state = ?`),
			dbTime(next), deliveryID, registry.DeliveryPending)
		return err
	})
}

// FinishHookDelivery records an attempt; see registry.HookStore.
func (s *Store) FinishHookDelivery(ctx context.Context, a registry.HookAttempt, keep int) error {
	return s.transact(ctx, "record hook delivery", func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.q(`UPDATE hook_deliveries SET state = ?, attempts = attempts + 1, next_attempt_at = ?,
leased_until = NULL, last_attempt_at = ?, last_status = ?, last_duration_ms = ?, last_error = ? WHERE id = ?`),
			a.State, dbTime(a.NextAttemptAt), dbTime(a.At), a.Status, a.Duration.Milliseconds(), a.Error, a.DeliveryID)
		if err != nil {
			return err
		}
		if a.FailingSince == nil {
			_, err = tx.ExecContext(ctx, s.q(`UPDATE hooks SET failing_since = NULL, slow_answers = ? WHERE id = ?`), a.SlowAnswers, a.HookID)
		} else {
			_, err = tx.ExecContext(ctx, s.q(`UPDATE hooks SET failing_since = COALESCE(failing_since, ?), slow_answers = ? WHERE id = ?`),
				dbTime(*a.FailingSince), a.SlowAnswers, a.HookID)
		}
		if err != nil {
			return err
		}
		if a.DisableNote != "" {
			_, err = tx.ExecContext(ctx, s.q(`UPDATE hooks SET disabled_at = ?, disabled_note = ? WHERE id = ? AND disabled_at IS NULL`),
				dbTime(a.At), a.DisableNote, a.HookID)
			if err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, s.q(`UPDATE hook_deliveries SET state = ? WHERE hook_id = ? AND state = ?`),
				registry.DeliveryFailed, a.HookID, registry.DeliveryPending)
			if err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, s.q(`DELETE FROM hook_deliveries WHERE hook_id = ? AND state <> ? AND id NOT IN (
SELECT id FROM hook_deliveries WHERE hook_id = ? ORDER BY id DESC LIMIT ?)`), a.HookID, registry.DeliveryPending, a.HookID, keep)
		return err
	})
}
