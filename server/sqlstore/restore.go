package sqlstore

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

// Restore loads a dump written by Dump (by either engine) into this
// database, which must be empty: it refuses otherwise and changes nothing.
// Everything is loaded in one transaction with the ids of the dump, so the
// API answers as the dumped database did; a file that is damaged or cut
// short loads nothing. It reads line by line: memory use does not grow with
// the dump.
func (s *Store) Restore(ctx context.Context, r io.Reader) (BackupCounts, error) {
	var counts BackupCounts
	in := &dumpReader{r: bufio.NewReaderSize(r, 256<<10)}
	line, err := in.next()
	if errors.Is(err, io.EOF) {
		return counts, invalid("the dump is empty")
	}
	if err != nil {
		return counts, err
	}
	var header dumpHeader
	if json.Unmarshal(line, &header) != nil || header.Format != DumpFormat {
		return counts, invalid("this is not a pact dump: line 1 is not a %q header", DumpFormat)
	}
	if header.Version < dumpVersion1 || header.Version > DumpVersion {
		return counts, invalid("the dump has format version %d; this pactd reads versions %d to %d", header.Version, dumpVersion1, DumpVersion)
	}

	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return counts, s.fault("restore", err)
	}
	defer tx.Rollback()
	if err := s.prepareRestore(ctx, tx); err != nil {
		return counts, err
	}
	// The search index is derived, not dumped: built in one pass at the end.
	if err := s.dialect.search().deferIndex(ctx, tx); err != nil {
		return counts, s.fault("restore", err)
	}
	inserts := map[string]*sql.Stmt{}
	for _, t := range tables {
		placeholders := strings.TrimSuffix(strings.Repeat("?, ", strings.Count(t.columns, ",")+1), ", ")
		stmt, err := tx.PrepareContext(ctx, s.q(`INSERT INTO `+t.name+` (`+t.columns+`) VALUES (`+placeholders+`)`))
		if err != nil {
			return counts, s.fault("restore", err)
		}
		defer stmt.Close()
		inserts[t.typ] = stmt
	}

	var end *endRecord
	logState := false
	for {
		line, err := in.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return counts, err
		}
		if end != nil {
			return counts, invalid("line %d: the dump goes on after its end record", in.line)
		}
		var probe typed
		if err := json.Unmarshal(line, &probe); err != nil {
			if in.unterminated {
				return counts, invalid("the dump is cut short in line %d; nothing was restored", in.line)
			}
			return counts, invalid("line %d: not a JSON record: %v", in.line, err)
		}
		if probe.Type == logStateType {
			if header.Version < DumpVersion || logState {
				return counts, invalid("line %d: a log state record is not expected here", in.line)
			}
			logState = true
			if err := s.restoreLogState(ctx, tx, line); err != nil {
				return counts, invalid("line %d: bad log state record: %v", in.line, err)
			}
			continue
		}
		if probe.Type == endType {
			end = new(endRecord)
			if err := strictUnmarshal(line, end); err != nil {
				return counts, invalid("line %d: bad end record: %v", in.line, err)
			}
			continue
		}
		t, ok := tableOf(probe.Type)
		if !ok {
			return counts, invalid("line %d: unknown record type %q", in.line, probe.Type)
		}
		rec, err := s.decodeRecord(ctx, tx, header.Version, t, line, in.line)
		if err != nil {
			return counts, err
		}
		if v, ok := rec.(*versionRecord); ok {
			if err := v.check(); err != nil {
				return counts, invalid("line %d: %v; the dump is damaged", in.line, err)
			}
		}
		if _, err := inserts[t.typ].ExecContext(ctx, rec.args()...); err != nil {
			return counts, fmt.Errorf("line %d: restoring %s %d: %w", in.line, t.typ, rec.getID(), s.fault("restore", err))
		}
		*t.count(&counts)++
	}
	if end == nil {
		return counts, invalid("the dump is cut short: it has no end record after line %d; nothing was restored", in.line)
	}
	if end.Counts != counts {
		return counts, invalid("the dump's end record counts %s but the file holds %s; nothing was restored", end.Counts, counts)
	}
	if header.Version == dumpVersion1 {
		if err := s.upgradeVersion1(ctx, tx); err != nil {
			return counts, err
		}
	}
	if !logState {
		// A dump made before the log: build it as the migration that
		// made the log does.
		if counts.LogEntries > 0 {
			return counts, invalid("the dump holds log entries but no log state record; nothing was restored")
		}
		if err := s.backfillLog(ctx, tx); err != nil {
			return counts, s.fault("restore: build the transparency log", err)
		}
	}
	// A dump made before pack-state entries: each package gets its first
	// one, as the migration that brought them gave it.
	if err := s.backfillPackStates(ctx, tx, time.Now()); err != nil {
		return counts, s.fault("restore: log the packages' states", err)
	}
	if err := s.fillTrustMakers(ctx, tx); err != nil {
		return counts, err
	}
	if err := s.fillFullTiles(ctx, tx); err != nil {
		return counts, s.fault("restore: store the log's full tiles", err)
	}
	if err := s.dialect.search().index(ctx, s, tx, 0); err != nil {
		return counts, s.fault("restore: build the search index", err)
	}
	if err := s.dialect.analyze(ctx, tx); err != nil {
		return counts, s.fault("restore: analyze", err)
	}
	if err := s.resetSequences(ctx, tx); err != nil {
		return counts, err
	}
	if err := tx.Commit(); err != nil {
		return counts, s.fault("restore", err)
	}
	if s.cache != nil {
		// Whatever it learnt of the empty database is wrong now.
		s.cache.reset()
	}
	return counts, nil
}

// decodeRecord reads one record of table t from a dump of the given format
// version, found at line lineNo, as a record of the current version.
func (s *Store) decodeRecord(ctx context.Context, tx *sql.Tx, version int, t table, line []byte, lineNo int) (record, error) {
	if version == dumpVersion1 && t.typ == "nonce" {
		// Version 1 named the key of a nonce by its id; its row came
		// earlier in the dump, so its fingerprint is in the database now.
		var old struct {
			typed
			KeyID   int64     `json:"key_id"`
			Nonce   string    `json:"nonce"`
			SpentAt time.Time `json:"spent_at"`
		}
		if err := strictUnmarshal(line, &old); err != nil {
			return nil, invalid("line %d: bad %s record: %v", lineNo, t.typ, err)
		}
		var fingerprint string
		err := tx.QueryRowContext(ctx, s.q(`SELECT fingerprint FROM ssh_keys WHERE id = ?`), old.KeyID).Scan(&fingerprint)
		if errNoRows(err) {
			return nil, invalid("line %d: a nonce of SSH key %d, which the dump does not hold before it", lineNo, old.KeyID)
		}
		if err != nil {
			return nil, s.fault("restore", err)
		}
		return &nonceRecord{typed: old.typed, Fingerprint: fingerprint, Nonce: old.Nonce, SpentAt: old.SpentAt}, nil
	}
	rec := t.new()
	if err := strictUnmarshal(line, rec); err != nil {
		return nil, invalid("line %d: bad %s record: %v", lineNo, t.typ, err)
	}
	if v, ok := rec.(*versionRecord); ok && version == dumpVersion1 && (v.SignedName != nil || v.SignedDescription != nil || v.PublicKey != nil) {
		return nil, invalid("line %d: bad %s record: signed_name, signed_description and public_key are not part of format version %d", lineNo, t.typ, version)
	}
	if version < dumpVersion3 {
		if err := notBeforeVersion3(rec, version); err != nil {
			return nil, invalid("line %d: bad %s record: %v", lineNo, t.typ, err)
		}
	}
	if v, ok := rec.(*versionRecord); ok && version < DumpVersion && v.LogIndex != nil {
		return nil, invalid("line %d: bad %s record: log_index is not part of format version %d", lineNo, t.typ, version)
	}
	if version < DumpVersion && strings.HasPrefix(t.typ, "log_") {
		return nil, invalid("line %d: %s records are not part of format version %d", lineNo, t.typ, version)
	}
	return rec, nil
}

// upgradeVersion1 leaves a database restored from a version 1 dump as the
// migration to signed lines leaves one upgraded in place: signed lines
// unknown, the public key filled in where its fingerprint is registered.
func (s *Store) upgradeVersion1(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `UPDATE versions
SET public_key = (SELECT k.public_key FROM ssh_keys k WHERE k.fingerprint = versions.key_fingerprint)
WHERE key_fingerprint IS NOT NULL`)
	return s.fault("restore: fill in the public keys of signed versions", err)
}

// prepareRestore lifts the statement timeout, keeps writers out until the
// restore commits, and checks that the database is empty.
func (s *Store) prepareRestore(ctx context.Context, tx *sql.Tx) error {
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.name
	}
	if err := s.dialect.lockForRestore(ctx, tx, names); err != nil {
		return s.fault("restore", err)
	}
	if err := s.clearEmptyLog(ctx, tx); err != nil {
		return s.fault("restore", err)
	}
	var holding []string
	for _, t := range tables {
		var hasRows bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM `+t.name+`)`).Scan(&hasRows); err != nil {
			return s.fault("restore", err)
		}
		if hasRows {
			holding = append(holding, t.plural)
		}
	}
	if len(holding) > 0 {
		return registry.Errorf(registry.Conflict,
			"the database is not empty (it holds %s): restore loads only into an empty database, so nothing was restored; point --db at a new database",
			strings.Join(holding, ", "))
	}
	return nil
}

// resetSequences moves each identity past the restored ids, so the next
// account, token, key, package or version gets a new one.
func (s *Store) resetSequences(ctx context.Context, tx *sql.Tx) error {
	for _, t := range tables {
		if !t.hasID {
			continue
		}
		if err := s.dialect.resetSequence(ctx, tx, t.name); err != nil {
			return s.fault("restore: set the id sequence of "+t.name, err)
		}
	}
	return nil
}

// check catches a document whose bytes changed on the way.
func (v *versionRecord) check() error {
	sum := sha256.Sum256(v.Content)
	if hex.EncodeToString(sum[:]) != v.SHA256 || int64(len(v.Content)) != v.Size {
		return fmt.Errorf("the content of version %d does not match its sha256 and size", v.ID)
	}
	return nil
}

func strictUnmarshal(line []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}

// dumpReader hands out a dump's lines one at a time, counting them.
type dumpReader struct {
	r    *bufio.Reader
	line int
	// unterminated: the last line read had no newline, as when the
	// file was cut short mid-line.
	unterminated bool
}

// next returns the next non-empty line, or io.EOF.
func (d *dumpReader) next() ([]byte, error) {
	for {
		line, err := d.r.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("reading the dump: %w", err)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("reading the dump: %w", err)
		}
		d.line++
		d.unterminated = err != nil
		if line = bytes.TrimSpace(line); len(line) > 0 {
			return line, nil
		}
	}
}

// notBeforeVersion3 refuses the yanks and deprecations of format version 3
// in an older dump: a file claiming an older format holds none.
func notBeforeVersion3(rec record, version int) error {
	switch r := rec.(type) {
	case *versionRecord:
		if r.YankedAt != nil || r.YankReason != "" {
			return fmt.Errorf("yanked_at and yank_reason are not part of format version %d", version)
		}
	case *packageRecord:
		if r.Deprecated != "" {
			return fmt.Errorf("deprecated is not part of format version %d", version)
		}
		if r.TrustedPublishingOnly {
			return fmt.Errorf("trusted_publishing_only is not part of format version %d", version)
		}
		if r.Downloads != 0 {
			return fmt.Errorf("downloads is not part of format version %d", version)
		}
	case *tokenRecord:
		if r.Scopes != nil || r.Packages != nil {
			return fmt.Errorf("scopes and packages are not part of format version %d", version)
		}
	case *accountRecord:
		if r.DisabledAt != nil {
			return fmt.Errorf("disabled_at is not part of format version %d", version)
		}
	case *sessionRecord:
		if r.LastSeenAt != nil || r.UserAgent != nil || r.IP != nil {
			return fmt.Errorf("last_seen_at, user_agent and ip are not part of format version %d", version)
		}
	}
	return nil
}
