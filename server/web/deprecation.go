package web

import (
	"context"
	"html/template"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// mentionPattern is what may be an owner/pack name in a text: two slugs
// joined by a slash. deprecationHTML checks what is around it and that
// the package exists.
var mentionPattern = regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9][A-Za-z0-9-]*`)

// maxMentionLookups bounds the packages one deprecation makes the page
// look up: a message of 500 characters could name a hundred.
const maxMentionLookups = 3

// deprecationHTML is a deprecation message as the package page shows it:
// escaped, with each mention of a package that exists ("use alice/other")
// linked to that package's page. A mention inside a longer path or URL
// (example.com/alice/other, alice/other/x) is left as text, and so is
// "and/or": no such package exists.
func (pages *Pages) deprecationHTML(ctx context.Context, message string) template.HTML {
	var b strings.Builder
	last := 0
	exists := map[string]string{} // lower-case mention → the package's path, "" if none
	for _, m := range mentionPattern.FindAllStringIndex(message, -1) {
		start, end := m[0], m[1]
		if !standsAlone(message, start, end) {
			continue
		}
		mention := strings.ToLower(message[start:end])
		path, seen := exists[mention]
		if !seen {
			if len(exists) == maxMentionLookups {
				continue
			}
			owner, pack, _ := strings.Cut(mention, "/")
			if p, err := pages.svc.Package(ctx, owner, pack); err == nil {
				path = "/" + p.OwnerSlug + "/" + p.PackSlug
			}
			exists[mention] = path
		}
		if path == "" {
			continue
		}
		b.WriteString(template.HTMLEscapeString(message[last:start]))
		// Slugs are lower-case letters, digits and '-': nothing to escape
		// in the path, but the shown text is the message's own.
		b.WriteString(`<a href="` + path + `">` + template.HTMLEscapeString(message[start:end]) + `</a>`)
		last = end
	}
	b.WriteString(template.HTMLEscapeString(message[last:]))
	return template.HTML(b.String())
}

// standsAlone reports whether text[start:end] is a word of its own, not
// part of a URL, an address, a path or a longer name.
func standsAlone(text string, start, end int) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:start])
	after, _ := utf8.DecodeRuneInString(text[end:])
	joins := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	if start > 0 && (joins(before) || strings.ContainsRune("/.:@_-", before)) {
		return false
	}
	if end < len(text) && (joins(after) || strings.ContainsRune("/_", after)) {
		return false
	}
	return true
}
