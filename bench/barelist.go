package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pact-registry/pact/server/sqlstore"
)

// The bare Go server of the list: net/http answering GET /api/packages
// by cursor as pactd does, from the seeded SQLite database, with nothing
// else (no router, log, metrics, request ids, deadlines, limits). Each
// answer runs pactd's keyset query for the page (its columns, join, order
// and limit, on a prepared statement, over connections set up as pactd's
// readers) and writes the same JSON, byte for byte for the seeded
// packages. It is the deep page's ceiling: what a Go server reading that
// page through database/sql and go-sqlite3 costs here.
// Its environment names the database and the base URL its links start
// with (pactd's, so that the two answers can be compared).
const (
	bareListEnv     = "PACT_BENCH_BARE_LIST"
	bareListBaseEnv = "PACT_BENCH_BARE_LIST_BASE"
)

// bareListReaders is how many connections it reads with, as many as
// pactd's list reads on this machine (max(4, cores)).
const bareListReaders = 4

// bareListQuery is the store's list query on SQLite (sqlstore
// ListPackages with a cursor, and listColumns), one more row than the page
// to know whether a next page exists.
const bareListQuery = `SELECT p.id, a.username, p.pack_slug, p.name, p.description, p.scheme,
p.version, p.sha256, p.latest_version_id, CAST(p.created_at AS TEXT), CAST(p.updated_at AS TEXT), p.deprecated,
p.trusted_publishing_only, p.downloads
FROM packages p JOIN accounts a ON a.id = p.owner_id
WHERE p.latest_version_id > 0 AND p.latest_version_id < ? ORDER BY p.latest_version_id DESC LIMIT ?`

// serveBareList is the child process of the bare list server.
func serveBareList(dbPath, base string) error {
	db, err := sqlstore.OpenSQLiteReaders(dbPath, bareListReaders)
	if err != nil {
		return err
	}
	defer db.Close()
	page, err := db.Prepare(bareListQuery)
	if err != nil {
		return err
	}
	defer page.Close()
	return serveBareHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/packages" {
			http.NotFound(w, r)
			return
		}
		before, err := bareCursor(r.URL.Query().Get("cursor"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body, err := bareListPage(r.Context(), page, base, before)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		h := w.Header()
		h["Content-Type"] = jsonType
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
		w.Write(body)
	}))
}

var jsonType = []string{"application/json; charset=utf-8"}

// bareCursor is the position a next_cursor of pactd's list holds
// (base64url of "v1:<latest version id>"); none means the first page.
func bareCursor(cursor string) (int64, error) {
	if cursor == "" {
		return 1<<63 - 1, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || !strings.HasPrefix(string(raw), "v1:") {
		return 0, errors.New("not a cursor")
	}
	return strconv.ParseInt(string(raw[3:]), 10, 64)
}

// bareListPage reads the page of listPageSize packages before the cursor's
// position and encodes it.
func bareListPage(ctx context.Context, page *sql.Stmt, base string, before int64) ([]byte, error) {
	rows, err := page.QueryContext(ctx, before, listPageSize+1)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var (
		id, latest                                                             int64
		trustedOnly                                                            bool
		downloads                                                              int64
		owner, pack, name, description, scheme, version, sha, created, updated sql.RawBytes
		deprecated                                                             sql.RawBytes
	)
	b := make([]byte, 0, 16<<10)
	b = append(b, `{"ok":true,"packages":[`...)
	n, last := 0, int64(0)
	for rows.Next() {
		if err := rows.Scan(&id, &owner, &pack, &name, &description, &scheme, &version, &sha, &latest, &created, &updated, &deprecated, &trustedOnly, &downloads); err != nil {
			return nil, err
		}
		if n == listPageSize {
			n++ // a next page exists
			break
		}
		if n > 0 {
			b = append(b, ',')
		}
		n, last = n+1, latest
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, id, 10)
		for _, f := range []struct {
			name  string
			value []byte
		}{{"owner_slug", owner}, {"pack_slug", pack}, {"name", name}, {"description", description},
			{"scheme", scheme}, {"version", version}, {"sha256", sha}} {
			b = append(b, `,"`...)
			b = append(b, f.name...)
			b = append(b, `":`...)
			b = appendBareJSON(b, f.value)
		}
		b = append(b, `,"url":"`...)
		b = append(append(append(append(append(b, base...), '/'), owner...), '/'), pack...)
		b = append(b, `","raw_url":"`...)
		b = append(append(append(append(append(b, base...), "/raw/"...), owner...), '/'), pack...)
		b = append(b, `.pact.md","install_command":"curl -fsSL `...)
		b = append(append(append(append(append(b, base...), "/raw/"...), owner...), '/'), pack...)
		b = append(append(append(b, `.pact.md -o `...), pack...), `.pact.md","versions_url":"`...)
		b = append(append(append(append(append(b, base...), "/api/packages/"...), owner...), '/'), pack...)
		b = append(b, `","created_at":`...)
		if b, err = appendBareTime(b, created); err != nil {
			return nil, err
		}
		b = append(b, `,"updated_at":`...)
		if b, err = appendBareTime(b, updated); err != nil {
			return nil, err
		}
		b = append(b, `,"deprecated":`...)
		b = appendBareJSON(b, deprecated)
		b = append(b, `,"trusted_publishing_only":`...)
		b = strconv.AppendBool(b, trustedOnly)
		b = append(b, `,"downloads":`...)
		b = strconv.AppendInt(b, downloads, 10)
		b = append(b, '}')
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	b = append(b, `],"next_cursor":`...)
	if n > listPageSize {
		b = append(b, '"')
		b = base64.RawURLEncoding.AppendEncode(b, strconv.AppendInt([]byte("v1:"), last, 10))
		b = append(b, '"')
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}'), nil
}

// appendBareJSON appends s as a JSON string, escaped as encoding/json
// escapes valid UTF-8 (the seeded texts are): runs of bytes that need no
// escape are copied at once.
func appendBareJSON(b, s []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && jsonPlain[s[j]] {
			j++
		}
		b = append(b, s[i:j]...)
		if j == len(s) {
			break
		}
		c := s[j]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
			i = j + 1
		case c == '\n':
			b = append(b, '\\', 'n')
			i = j + 1
		case c == '\r':
			b = append(b, '\\', 'r')
			i = j + 1
		case c == '\t':
			b = append(b, '\\', 't')
			i = j + 1
		case c < utf8.RuneSelf:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			i = j + 1
		default:
			r, size := utf8.DecodeRune(s[j:])
			if r == '\u2028' || r == '\u2029' {
				b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			} else {
				b = append(b, s[j:j+size]...)
			}
			i = j + size
		}
	}
	return append(b, '"')
}

// jsonPlain are the bytes appendBareJSON copies as they are: printable
// ASCII but for the quote, the backslash and the HTML characters.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = !strings.ContainsRune(`"\<>&`, rune(c))
	}
	return t
}()

// appendBareTime appends a stored UTC time ("2006-01-02 15:04:05[.frac]"
// then "+00:00" or "Z") as pactd's JSON writes it, to the second.
func appendBareTime(b, stored []byte) ([]byte, error) {
	if len(stored) < 20 || !(bytes.HasSuffix(stored, []byte("+00:00")) || bytes.HasSuffix(stored, []byte("Z"))) {
		return nil, fmt.Errorf("not a stored UTC time: %q", stored)
	}
	b = append(b, '"')
	b = append(b, stored[:10]...)
	b = append(b, 'T')
	b = append(b, stored[11:19]...)
	return append(b, `Z"`...), nil
}

// startBareList starts the bare list server over the SQLite database at
// dbPath, its links starting with base.
func startBareList(ctx context.Context, dbPath, base string) (*bareServer, error) {
	return startBareWith(ctx, bareListEnv+"="+dbPath, bareListBaseEnv+"="+base)
}
