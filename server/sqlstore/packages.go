package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/pact-registry/pact/server/registry"
)

const packageColumns = `p.id, p.owner_id, a.username, p.pack_slug, p.name, p.description, p.scheme,
p.version, p.sha256, p.latest_version_id, p.created_at, p.updated_at, p.deprecated, p.trusted_publishing_only, p.downloads`

const packageFrom = ` FROM packages p JOIN accounts a ON a.id = p.owner_id`

func scanPackage(row scanner) (*registry.Package, error) { return scanPackageAnd(row) }

// scanPackageAnd reads packageColumns, then extra.
func scanPackageAnd(row scanner, extra ...any) (*registry.Package, error) {
	var p registry.Package
	if err := row.Scan(append([]any{&p.ID, &p.OwnerID, &p.OwnerSlug, &p.PackSlug, &p.Name, &p.Description, &p.Scheme,
		&p.Version, &p.SHA256, &p.LatestVersionID, &p.CreatedAt, &p.UpdatedAt, &p.Deprecated, &p.TrustedPublishingOnly, &p.Downloads}, extra...)...); err != nil {
		return nil, err
	}
	p.CreatedAt, p.UpdatedAt = p.CreatedAt.UTC(), p.UpdatedAt.UTC()
	return &p, nil
}

// scanRawVersion reads rawColumns.
func scanRawVersion(row scanner, content *[]byte) (*registry.Version, error) {
	v := new(registry.Version)
	var yankedAt sql.NullTime
	if err := row.Scan(&v.ID, &v.PackageID, &v.Version, &v.SHA256, &v.Size, &yankedAt, &v.YankReason, content); err != nil {
		return nil, err
	}
	v.YankedAt = timePtr(yankedAt)
	return v, nil
}

// versionColumns leaves out content, which only VersionDocument reads.
const versionColumns = `v.id, v.package_id, v.version, v.name, v.description, v.scheme, v.sha256, v.size,
v.created_at, v.key_id, v.key_fingerprint, v.signed_timestamp, v.nonce, v.signature, v.signed_name,
v.signed_description, v.public_key, v.yanked_at, v.yank_reason, v.log_index, v.ci,
EXISTS (SELECT 1 FROM releases rel WHERE rel.version_id = v.id),
v.publisher_id, v.token_id, (SELECT pa.username FROM accounts pa WHERE pa.id = v.publisher_id)`

func scanVersion(row scanner, extra ...any) (*registry.Version, error) {
	var v registry.Version
	var keyID, timestamp sql.NullInt64
	var fingerprint, nonce, signature, signedName, signedDescription, publicKey sql.NullString
	var yankedAt sql.NullTime
	var logIndex sql.NullInt64
	var ci sql.NullString
	var publisherID, tokenID sql.NullInt64
	var publisher sql.NullString
	dest := append([]any{&v.ID, &v.PackageID, &v.Version, &v.Name, &v.Description, &v.Scheme, &v.SHA256, &v.Size,
		&v.CreatedAt, &keyID, &fingerprint, &timestamp, &nonce, &signature, &signedName, &signedDescription, &publicKey,
		&yankedAt, &v.YankReason, &logIndex, &ci, &v.HasRelease, &publisherID, &tokenID, &publisher}, extra...)
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	if publisherID.Valid && publisher.Valid {
		v.Publisher = &registry.Publisher{ID: publisherID.Int64, Username: publisher.String}
	}
	v.TokenID = tokenID.Int64
	var err error
	if v.CI, err = parseCI(ci); err != nil {
		return nil, err
	}
	if logIndex.Valid {
		v.LogIndex = &logIndex.Int64
	}
	v.CreatedAt = v.CreatedAt.UTC()
	v.YankedAt = timePtr(yankedAt)
	if fingerprint.Valid {
		v.Provenance = &registry.Provenance{
			KeyID:       keyID.Int64, // 0 once the key is deleted
			Fingerprint: fingerprint.String,
			Timestamp:   timestamp.Int64,
			Nonce:       nonce.String,
			Signature:   signature.String,
			// Both lines are written together; NULL means the version
			// was signed before they were kept.
			SignedLinesKnown:  signedName.Valid && signedDescription.Valid,
			SignedName:        signedName.String,
			SignedDescription: signedDescription.String,
			PublicKey:         publicKey.String,
		}
	}
	return &v, nil
}

// provenanceArgs are the values of versions' provenance columns, from
// key_id to public_key.
func provenanceArgs(p *registry.Provenance) []any {
	if p == nil {
		return []any{nil, nil, nil, nil, nil, nil, nil, nil}
	}
	var signedName, signedDescription, publicKey any
	if p.SignedLinesKnown {
		signedName, signedDescription = p.SignedName, p.SignedDescription
	}
	if p.PublicKey != "" {
		publicKey = p.PublicKey
	}
	return []any{p.KeyID, p.Fingerprint, p.Timestamp, p.Nonce, p.Signature, signedName, signedDescription, publicKey}
}

// ListPackages returns one page, the package whose latest version was
// published last first, or with f.Query a page of a search in rank order
// (searchPackages). f.Limit rows at most
// are returned; a caller that wants to know whether a next page exists asks
// for one more than it shows.
func (s *Store) ListPackages(ctx context.Context, f registry.PackageFilter) ([]registry.Package, error) {
	if f.Limit <= 0 {
		return nil, invalid("limit must be positive")
	}
	if strings.TrimSpace(f.Query) != "" {
		return s.searchPackages(ctx, f)
	}
	// Nothing is cached here: the server keeps the encoded first pages
	// under Generation, and deeper pages cost what the first does through
	// the index (keyset).
	// A package whose every version is yanked has no latest version
	// (latest_version_id 0) and nothing to offer: it is not listed. The
	// condition is a range of the ordering column, so every index below
	// still serves the order.
	where := []string{`p.latest_version_id > 0`}
	var args []any
	if f.Before > 0 {
		where = append(where, `p.latest_version_id < ?`)
		args = append(args, f.Before)
	}
	if f.Owner != "" {
		// The owner's id first, as a scalar: then both engines walk
		// packages_owner_latest in order and stop at the limit, instead of
		// sorting all of the owner's packages (PostgreSQL's plan for the
		// join).
		where = append(where, `p.owner_id = (SELECT id FROM accounts WHERE lower(username) = lower(?))`)
		args = append(args, f.Owner)
	}
	if f.Scheme != "" {
		where = append(where, `p.scheme = ?`)
		args = append(args, f.Scheme)
	}
	query := `SELECT ` + s.dialect.listColumns() + packageFrom
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, ` AND `)
	}
	query += ` ORDER BY p.latest_version_id DESC LIMIT ?`
	args = append(args, f.Limit)

	return s.queryPackages(ctx, "list packages", min(f.Limit, 128), query, args...)
}

// listTime is a time read by the dialect's listColumns, in UTC: a time.Time
// (PostgreSQL) or SQLite's stored text, "2006-01-02 15:04:05.999999-07:00"
// as go-sqlite3 writes it.
func listTime(v any) (time.Time, error) {
	switch v := v.(type) {
	case time.Time:
		return v.UTC(), nil
	case string:
		if t, ok := parseStoredTime(v); ok {
			return t, nil
		}
		// Every other spelling, as go-sqlite3 reads it.
		trimmed := strings.TrimSuffix(v, "Z")
		for _, layout := range sqlite3.SQLiteTimestampFormats {
			if t, err := time.ParseInLocation(layout, trimmed, time.UTC); err == nil {
				return t.UTC(), nil
			}
		}
		return time.Time{}, fmt.Errorf("unreadable time %q", v)
	}
	return time.Time{}, fmt.Errorf("unexpected time value %T", v)
}

// parseStoredTime parses "YYYY-MM-DD HH:MM:SS[.fraction]" followed by
// "+00:00", "Z" or another "±hh:mm" offset; ok is false for anything else.
func parseStoredTime(s string) (time.Time, bool) {
	num := func(s string) (int, bool) {
		n := 0
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			n = n*10 + int(s[i]-'0')
		}
		return n, true
	}
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false
	}
	year, ok1 := num(s[0:4])
	month, ok2 := num(s[5:7])
	day, ok3 := num(s[8:10])
	hour, ok4 := num(s[11:13])
	minute, ok5 := num(s[14:16])
	second, ok6 := num(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59 {
		return time.Time{}, false
	}
	rest, nanos := s[19:], 0
	if rest[0] == '.' {
		i := 1
		for i < len(rest) && i <= 9 && rest[i] >= '0' && rest[i] <= '9' {
			nanos = nanos*10 + int(rest[i]-'0')
			i++
		}
		if i == 1 || (i < len(rest) && rest[i] >= '0' && rest[i] <= '9') {
			return time.Time{}, false
		}
		for d := i; d <= 9; d++ {
			nanos *= 10
		}
		rest = rest[i:]
	}
	offset := 0
	switch {
	case rest == "Z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		h, okh := num(rest[1:3])
		m, okm := num(rest[4:6])
		if !okh || !okm || h > 23 || m > 59 {
			return time.Time{}, false
		}
		offset = (h*60 + m) * 60
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, second, nanos, time.UTC)
	if t.Day() != day { // February 30th and the like
		return time.Time{}, false
	}
	return t.Add(-time.Duration(offset) * time.Second), true
}

// queryPackages is queryList for packages, scanning each row into its
// place in the list through one set of destinations: the list is the most
// read answer, and a package and a destination slice allocated per row
// were a tenth of a page's allocations.
func (s *Store) queryPackages(ctx context.Context, op string, capacity int, query string, args ...any) ([]registry.Package, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	rows, err := s.read.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, s.fault(op, err)
	}
	defer rows.Close()
	list := make([]registry.Package, 0, capacity)
	var p registry.Package
	var created, updated any
	dest := []any{&p.ID, &p.OwnerID, &p.OwnerSlug, &p.PackSlug, &p.Name, &p.Description, &p.Scheme,
		&p.Version, &p.SHA256, &p.LatestVersionID, &created, &updated, &p.Deprecated, &p.TrustedPublishingOnly, &p.Downloads}
	for rows.Next() {
		p = registry.Package{}
		if err := rows.Scan(dest...); err != nil {
			return nil, s.fault(op, err)
		}
		var err1, err2 error
		p.CreatedAt, err1 = listTime(created)
		p.UpdatedAt, err2 = listTime(updated)
		if err := errors.Join(err1, err2); err != nil {
			return nil, s.fault(op, err)
		}
		list = append(list, p)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fault(op, err)
	}
	return list, nil
}

// PackageBySlug finds a package; the owner's username and the pack slug
// match regardless of case.
func (s *Store) PackageBySlug(ctx context.Context, owner, pack string) (*registry.Package, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var head sql.NullInt64
	p, err := scanPackageAnd(s.read.QueryRowContext(ctx, s.q(`SELECT `+packageColumns+`, p.log_head`+packageFrom+`
WHERE lower(a.username) = lower(?) AND p.pack_slug = ?`), owner, strings.ToLower(pack)), &head)
	if errNoRows(err) {
		return nil, noSuchPackage(owner, pack)
	}
	if err != nil {
		return nil, s.fault("read package", err)
	}
	if head.Valid {
		p.LogHead = &head.Int64
	}
	return p, nil
}

func noSuchPackage(owner, pack string) error {
	return notFound("no such package %s/%s", owner, pack)
}

// CountPackages counts every package and every version. Both engines
// scan for count(*) (SQLite its smallest index, PostgreSQL an index or the
// table): about 10 ms a million rows on SQLite, so the service keeps the
// answer (Service.Counts).
func (s *Store) CountPackages(ctx context.Context) (packages, versions int64, err error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	err = s.read.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM packages), (SELECT count(*) FROM versions)`).Scan(&packages, &versions)
	if err != nil {
		return 0, 0, s.fault("count packages", err)
	}
	return packages, versions, nil
}

// ListVersions lists a package's versions newest first, without content. A
// package that does not exist has no versions.
func (s *Store) ListVersions(ctx context.Context, packageID int64) ([]registry.Version, error) {
	return queryList(ctx, s, "list versions", 0, func(row scanner) (*registry.Version, error) { return scanVersion(row) },
		`SELECT `+versionColumns+` FROM versions v WHERE v.package_id = ? ORDER BY v.id DESC`, packageID)
}

// VersionDocument returns one version with its content; version "" is the
// latest. Hot documents come from memory (readCache): the returned
// Content is shared with other callers and must not be modified.
func (s *Store) VersionDocument(ctx context.Context, owner, pack, version string) (*registry.Version, error) {
	return s.cachedDocument(ctx, docKey(owner, pack, version), false, func(ctx context.Context, _ int64) (*registry.Version, error) {
		return s.versionDocument(ctx, owner, pack, version, false)
	})
}

// RawDocument is VersionDocument for the raw path: the returned Version
// holds only what a raw answer shows (ID, PackageID, Version, SHA256, Size,
// YankedAt, YankReason, Content). On a cache miss it reads those columns
// and nothing else (no release, publisher or signature), and it is cached
// apart from VersionDocument's entries. A miss whose version row the cache
// knows reads that row by primary key.
func (s *Store) RawDocument(ctx context.Context, owner, pack, version string) (*registry.Version, error) {
	key := docKey(owner, pack, version)
	key.raw = true
	return s.cachedDocument(ctx, key, true, func(ctx context.Context, id int64) (*registry.Version, error) {
		if id != 0 {
			if v, err := s.rawDocumentByID(ctx, id); v != nil || err != nil {
				return v, err
			}
		}
		return s.versionDocument(ctx, owner, pack, version, true)
	})
}

// cachedDocument answers key from the read cache, or reads it and keeps it.
// shared answers a hit with the cache's own Version, for a caller that
// promises not to modify it (RawDocument, the hottest path); others get a
// copy of what they might change. read is given the id of the version row
// the key names when the cache knows it, else 0.
func (s *Store) cachedDocument(ctx context.Context, key docID, shared bool, read func(context.Context, int64) (*registry.Version, error)) (*registry.Version, error) {
	if s.cache == nil {
		return read(ctx, 0)
	}
	// The generation is taken before the look-up: an id found there may
	// name the row of a latest version that a publish replaces right
	// after, and the read by that id must then not be kept.
	gen := s.cache.gen()
	v, id := s.cache.find(key)
	if v != nil {
		if !shared {
			v = copyVersion(v)
		}
		return v, nil
	}
	var readAt time.Duration
	if s.cache.ttl > 0 {
		readAt = clock() // before the read: an entry never outlives ttl from the row it holds
	}
	v, err := read(ctx, id)
	if err == nil {
		s.cache.putDoc(key, v, gen, readAt)
	}
	return v, err
}

// rawColumns are RawDocument's columns.
const rawColumns = `v.id, v.package_id, v.version, v.sha256, v.size, v.yanked_at, v.yank_reason, v.content`

// versionDocumentQueries are versionDocument's statements: [raw][pinned].
var versionDocumentQueries = func() (q [2][2]string) {
	for _, raw := range []bool{false, true} {
		for _, pinned := range []bool{false, true} {
			columns := versionColumns + `, v.content`
			if raw {
				columns = rawColumns
			}
			query := `SELECT ` + columns + ` FROM packages p
JOIN accounts a ON a.id = p.owner_id
JOIN versions v ON `
			if pinned {
				query += `v.package_id = p.id AND v.version = ?`
			} else {
				query += `v.id = p.latest_version_id`
			}
			q[b2i(raw)][b2i(pinned)] = query + ` WHERE lower(a.username) = lower(?) AND p.pack_slug = ?`
		}
	}
	return q
}()

// versionDocumentQuery answers the statement that reads a version's
// document: only what a raw answer shows when raw, a pinned version when
// pinned, else the latest.
func versionDocumentQuery(raw, pinned bool) string {
	return versionDocumentQueries[b2i(raw)][b2i(pinned)]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sqlRawByID reads a raw document by its version row's primary key.
const sqlRawByID = `SELECT ` + rawColumns + ` FROM versions v WHERE v.id = ?`

// rawDocumentByID reads RawDocument's columns of the version row id; nil
// when there is none (a restore replaced the database since the id was
// learnt, and the cache with it: a read in flight may still ask).
func (s *Store) rawDocumentByID(ctx context.Context, id int64) (*registry.Version, error) {
	var content []byte
	var v *registry.Version
	err := s.pointRow(ctx, sqlRawByID, func(row scanner) (err error) {
		v, err = scanRawVersion(row, &content)
		return err
	}, id)
	if errNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, s.fault("read version", err)
	}
	v.Content = content
	return v, nil
}

func (s *Store) versionDocument(ctx context.Context, owner, pack, version string, raw bool) (*registry.Version, error) {
	args := make([]any, 0, 3)
	if version != "" {
		args = append(args, version)
	}
	args = append(args, owner, strings.ToLower(pack))

	var content []byte
	var v *registry.Version
	err := s.pointRow(ctx, versionDocumentQuery(raw, version != ""), func(row scanner) (err error) {
		if raw {
			v, err = scanRawVersion(row, &content)
		} else {
			v, err = scanVersion(row, &content)
		}
		return err
	}, args...)
	if errNoRows(err) {
		p, err := s.PackageBySlug(ctx, owner, pack)
		if err != nil {
			return nil, err
		}
		if version == "" {
			// The package exists with no latest version: its row and
			// first version are written in one transaction, so every
			// version is yanked.
			return nil, allYanked(p)
		}
		return nil, notFound("no version %s of %s/%s", version, owner, pack)
	}
	if err != nil {
		return nil, s.fault("read version", err)
	}
	v.Content = content
	return v, nil
}

// PruneNonces forgets nonces spent before the given time; it returns how
// many it forgot.
func (s *Store) PruneNonces(ctx context.Context, before time.Time) (int64, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	res, err := s.write.ExecContext(ctx, s.q(`DELETE FROM nonces WHERE spent_at < ?`), dbTime(before))
	if err != nil {
		return 0, s.fault("prune nonces", err)
	}
	n, err := res.RowsAffected()
	return n, s.fault("prune nonces", err)
}

// rowContent is what a version's row keeps of its document: all of it,
// or nothing (a zero-length value) when the document is on the blob store
// (registry.InBlobStore). No document is empty, so the two never mix up,
// and content stays NOT NULL: no table is rebuilt for the blob store.
func rowContent(in registry.PublishInput) []byte {
	if in.DocumentInBlobStore {
		return []byte{}
	}
	return in.Content
}

// nullID is NULL for the id 0 (none).
func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}
