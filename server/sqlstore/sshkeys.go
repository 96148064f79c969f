package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

const sshKeyColumns = `id, account_id, name, type, fingerprint, public_key, created_at, last_used_at`

func scanSSHKey(row scanner, extra ...any) (*registry.SSHKey, error) {
	var k registry.SSHKey
	var lastUsed sql.NullTime
	if err := row.Scan(append([]any{&k.ID, &k.AccountID, &k.Name, &k.Type, &k.Fingerprint, &k.PublicKey, &k.CreatedAt, &lastUsed}, extra...)...); err != nil {
		return nil, err
	}
	k.CreatedAt = k.CreatedAt.UTC()
	k.LastUsedAt = timePtr(lastUsed)
	return &k, nil
}

func (t *txn) InsertSSHKey(k *registry.SSHKey) error {
	k.CreatedAt = dbTime(k.CreatedAt)
	err := t.queryRow(`INSERT INTO ssh_keys (account_id, name, type, fingerprint, public_key, created_at, last_used_at)
VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		k.AccountID, k.Name, k.Type, k.Fingerprint, k.PublicKey, k.CreatedAt, nullTime(k.LastUsedAt)).Scan(&k.ID)
	return t.insertFault(err, k.AccountID, "an SSH key with fingerprint %s is registered already", k.Fingerprint)
}

// KeyHolder finds a key by its fingerprint, with its account, read in the
// same statement: every signed publish needs both.
func (s *Store) KeyHolder(ctx context.Context, fingerprint string) (*registry.SSHKey, *registry.Account, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var a registry.Account
	var disabled sql.NullTime
	k, err := scanSSHKey(s.read.QueryRowContext(ctx, s.q(`SELECT `+prefixed("k.", sshKeyColumns)+`, `+prefixed("a.", accountColumns)+`
FROM ssh_keys k JOIN accounts a ON a.id = k.account_id WHERE k.fingerprint = ?`), fingerprint), accountDest(&a, &disabled)...)
	if errNoRows(err) {
		return nil, nil, notFound("no SSH key with fingerprint %s is registered", fingerprint)
	}
	if err != nil {
		return nil, nil, s.fault("read SSH key", err)
	}
	finishAccount(&a, disabled)
	return k, &a, nil
}

// ListSSHKeys lists an account's keys, oldest first.
func (s *Store) ListSSHKeys(ctx context.Context, accountID int64) ([]registry.SSHKey, error) {
	return queryList(ctx, s, "list SSH keys", 0, func(row scanner) (*registry.SSHKey, error) { return scanSSHKey(row) }, `SELECT `+sshKeyColumns+` FROM ssh_keys WHERE account_id = ?
ORDER BY created_at, id`, accountID)
}

// TouchSSHKey records when a key last signed a publish. It follows every
// signed publish, so on SQLite it shares their transactions.
func (s *Store) TouchSSHKey(ctx context.Context, keyID int64, at time.Time) error {
	return s.touch(ctx, `UPDATE ssh_keys SET last_used_at = ? WHERE id = ?`, dbTime(at), keyID, "touch SSH key",
		func() error { return notFound("no such SSH key %d", keyID) })
}
