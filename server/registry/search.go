package registry

import (
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The bounds of a search (docs/protocol.md, "Search").
const (
	MaxSearchBytes = 200
	MaxSearchWords = 16
)

func checkSearch(q string) error {
	if len(q) > MaxSearchBytes {
		return Errorf(Invalid, "q must be at most %d bytes", MaxSearchBytes)
	}
	if !utf8.ValidString(q) || strings.ContainsRune(q, 0) {
		return Errorf(Invalid, "q must be UTF-8 text without NUL characters")
	}
	if n := len(strings.Fields(q)); n > MaxSearchWords {
		return Errorf(Invalid, "q may have at most %d words, it has %d", MaxSearchWords, n)
	}
	return nil
}

// A search's cursor ("v3:") names the rank, the position in it
// (Package.SearchKey) and, for a prefix match, the slug of the page's last
// package, and a hash of the search it belongs to: next_cursor passed with
// another q, owner or scheme is refused rather than giving pages of a list
// nobody asked for. So are a plain list's cursor ("v1:", a position in
// another order) and a "v2:" one (whose other matches were in another
// order).
func encodeSearchCursor(q ListQuery, last Package) string {
	raw := fmt.Sprintf("v3:%d:%d:%08x:%s", last.SearchRank, last.SearchKey(), searchHash(q), last.PackSlug)
	if last.SearchRank != SearchPrefix {
		raw = fmt.Sprintf("v3:%d:%d:%08x:", last.SearchRank, last.SearchKey(), searchHash(q))
	}
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

func decodeSearchCursor(q ListQuery, f *PackageFilter) error {
	if q.Cursor == "" {
		return nil
	}
	another := Errorf(Invalid, "cursor belongs to another search: pass next_cursor with the q, owner and scheme of the page that gave it")
	if _, err := decodeCursor(q.Cursor); err == nil {
		return another
	}
	bad := Errorf(Invalid, "cursor is not valid: pass next_cursor of the previous page unchanged")
	raw, err := base64.RawURLEncoding.DecodeString(q.Cursor)
	if err != nil {
		return bad
	}
	parts := strings.SplitN(string(raw), ":", 5)
	if len(parts) == 5 && parts[0] == "v2" {
		return another
	}
	if len(parts) != 5 || parts[0] != "v3" {
		return bad
	}
	rank, err1 := strconv.Atoi(parts[1])
	before, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || rank < SearchExact || rank > SearchOther || before <= 0 {
		return bad
	}
	if parts[3] != fmt.Sprintf("%08x", searchHash(q)) {
		return another
	}
	f.Rank, f.Before, f.AfterSlug = rank, before, parts[4]
	return nil
}

func searchHash(q ListQuery) uint32 {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s\x00%s\x00%s", strings.Join(strings.Fields(strings.ToLower(q.Query)), " "), strings.ToLower(q.Owner), q.Scheme)
	return h.Sum32()
}
