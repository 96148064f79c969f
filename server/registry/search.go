package registry

import (
	"context"
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pact-registry/pact/pkg/packfmt"
)

// The bounds of a search (docs/protocol.md, "Search").
const (
	MaxSearchBytes = 200
	MaxSearchWords = 16
)

// SearchTerms is a search's query cut into its parts, the grammar every
// engine searches by (docs/protocol.md, "Search").
type SearchTerms struct {
	// Words are the query's words, each a phrase of the index's tokens
	// ("pg-saver" is the phrase pg saver); the last one matches as a
	// prefix. A word said twice is asked once.
	Words [][]string
	// Owner is, for a one-word query "owner/slug", the owner; Key is the
	// slug an exact match has ("" for none).
	Owner, Key string
}

// ParseSearch cuts query into its terms.
func ParseSearch(query string) SearchTerms {
	var t SearchTerms
	text := query
	fields := strings.Fields(query)
	if len(fields) == 1 {
		if owner, rest, ok := strings.Cut(fields[0], "/"); ok {
			if o := packfmt.Slug(owner); o != "" && o == strings.ToLower(owner) {
				t.Owner, text = o, rest
			}
		}
	}
	fields = strings.Fields(text)
	for i, field := range fields {
		tokens := packfmt.SearchWords(field)
		// The last of a word said twice stays, as the prefix.
		again := slices.ContainsFunc(fields[i+1:], func(f string) bool { return slices.Equal(packfmt.SearchWords(f), tokens) })
		if len(tokens) > 0 && !again {
			t.Words = append(t.Words, tokens)
		}
	}
	t.Key = packfmt.Slug(text)
	return t
}

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

// A search's cursor ("v4:") names the rank, the score and the latest
// version of the page's last package (its position in the search's order;
// the score exactly, as the bits of the float), and a hash of the search it
// belongs to: next_cursor passed with another q, owner or scheme is refused
// rather than giving pages of a list nobody asked for. So are a plain
// list's cursor ("v1:", a position in another order) and the cursors of
// older servers ("v2:", "v3:", positions in orders of their own).
func encodeSearchCursor(q ListQuery, last Package) string {
	raw := fmt.Sprintf("v4:%d:%x:%d:%08x", last.SearchRank, math.Float64bits(last.SearchScore), last.LatestVersionID, searchHash(q))
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
	parts := strings.Split(string(raw), ":")
	if len(parts) > 0 && (parts[0] == "v2" || parts[0] == "v3") {
		return another
	}
	if len(parts) != 5 || parts[0] != "v4" {
		return bad
	}
	rank, err1 := strconv.Atoi(parts[1])
	bits, err2 := strconv.ParseUint(parts[2], 16, 64)
	before, err3 := strconv.ParseInt(parts[3], 10, 64)
	score := math.Float64frombits(bits)
	if err1 != nil || err2 != nil || err3 != nil || rank < SearchExact || rank > SearchOther || before <= 0 ||
		math.IsNaN(score) || math.IsInf(score, 0) {
		return bad
	}
	if parts[4] != fmt.Sprintf("%08x", searchHash(q)) {
		return another
	}
	f.Rank, f.Score, f.Before = rank, score, before
	return nil
}

func searchHash(q ListQuery) uint32 {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s\x00%s\x00%s", strings.Join(strings.Fields(strings.ToLower(q.Query)), " "), strings.ToLower(q.Owner), q.Scheme)
	return h.Sum32()
}

// The suggestions of a search (docs/protocol.md, "Search"): asked for when
// the first page of a search has fewer than suggestBelow packages.
const (
	suggestBelow   = 3
	MaxSuggestions = 5
)

// Suggestions returns the slugs nearest to q's words, for a search whose
// first page found fewer than suggestBelow packages (found), leaving out
// the slugs it found; nil for a plain list, a later page, a search that
// found enough, or one that found the package it names.
func (s *Service) Suggestions(ctx context.Context, q ListQuery, found []Package) ([]string, error) {
	// A search that found the package it names (rank SearchExact) is
	// not a typo.
	if strings.TrimSpace(q.Query) == "" || q.Cursor != "" || len(found) >= suggestBelow ||
		len(found) > 0 && found[0].SearchRank == SearchExact {
		return nil, nil
	}
	if err := checkSearch(q.Query); err != nil {
		return nil, err
	}
	near, err := s.store.SuggestSlugs(ctx, q.Query, MaxSuggestions+len(found))
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, slug := range near {
		if !slices.ContainsFunc(found, func(p Package) bool { return p.PackSlug == slug }) && len(out) < MaxSuggestions {
			out = append(out, slug)
		}
	}
	return out, nil
}
