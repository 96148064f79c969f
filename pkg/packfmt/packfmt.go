// Package packfmt parses pack documents: UTF-8 markdown files (*.pact.md)
// that carry exactly one fenced code block whose info string is
// "yaml pact:pack" (or "yml pact:pack"). The block holds a YAML mapping from
// which the pack's name, version, scheme and description are derived.
//
// The package is pure: it reads no files and makes no network calls, so the
// server and the CLI get the same answer for the same bytes.
package packfmt

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// DefaultMaxBytes is the size limit used when Options.MaxBytes is 0.
const DefaultMaxBytes = 1 << 20

// ErrTooLarge is returned (wrapped, so use errors.Is) for documents over the
// size limit. It is the one error Parse returns that is not an *Error, because
// the server answers it with 413 rather than 400.
var ErrTooLarge = errors.New("pack document is too large")

// Options carry what a publish request adds to the document.
type Options struct {
	// Name and Description come from the request and win over the document's.
	Name, Description string
	// FileName is the uploaded file's name, possibly with a directory. Its
	// base without ".pact.md" is the name of last resort.
	FileName string
	// MaxBytes limits the document size; 0 (or less) means DefaultMaxBytes.
	MaxBytes int64
}

// Pack is what a pack document declares, after the derivation rules.
type Pack struct {
	Name, Slug, Version, Scheme, Description string
	// BlockLine is the 1-based document line of the block's opening fence.
	BlockLine int
	// Warnings say what the name lost on its way to the slug (characters
	// without a slug form, a cut); nil when nothing was lost.
	Warnings []string
}

// Error is a problem with the document that its author can fix. Line is the
// 1-based document line it concerns, 0 when no single line applies.
type Error struct {
	Line    int
	Message string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Message)
	}
	return e.Message
}

func errorf(line int, format string, args ...any) *Error {
	return &Error{Line: line, Message: fmt.Sprintf(format, args...)}
}

const fileSuffix = ".pact.md"

// utf8BOM is dropped before parsing: editors on Windows add it, and markdown
// parsers would otherwise see it as text in front of an opening fence.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Parse checks doc and derives its Pack. Every error is an *Error except the
// size check, which wraps ErrTooLarge.
func Parse(doc []byte, opts Options) (*Pack, error) {
	limit := opts.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	if int64(len(doc)) > limit {
		return nil, fmt.Errorf("%w: %d bytes, the limit is %d bytes", ErrTooLarge, len(doc), limit)
	}
	src := bytes.TrimPrefix(doc, utf8BOM)
	if err := checkText(src); err != nil {
		return nil, err
	}

	block, err := findPackBlock(src)
	if err != nil {
		return nil, err
	}
	fields, err := readPackYAML(block)
	if err != nil {
		return nil, err
	}
	return derive(fields, block.line, opts)
}

// checkText rejects bytes that are not text: invalid UTF-8 and NUL, which
// CommonMark would silently replace and databases and terminals mishandle.
func checkText(src []byte) error {
	if !utf8.Valid(src) {
		return errorf(lineOfOffset(src, invalidUTF8Offset(src)), "document is not valid UTF-8")
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return errorf(lineOfOffset(src, i), "document contains a NUL byte")
	}
	return checkNesting(src)
}

func invalidUTF8Offset(src []byte) int {
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(src)
}

func lineOfOffset(src []byte, offset int) int {
	return 1 + bytes.Count(src[:offset], []byte{'\n'})
}

// derive applies the precedence rules of the derived fields.
func derive(f packFields, blockLine int, opts Options) (*Pack, error) {
	p := &Pack{BlockLine: blockLine}

	name := firstNonEmpty(
		field{value: strings.TrimSpace(opts.Name)},
		f.name, f.metaName, f.metaID,
		field{value: nameFromFileName(opts.FileName)},
	)
	if name.value == "" {
		return nil, errorf(0, "pack has no name (set `name:` or `metadata.name:`, or give a name when publishing)")
	}
	p.Name = name.value
	p.Slug, p.Warnings = SlugOf(p.Name)
	if p.Slug == "" {
		return nil, errorf(name.line, "name %s gives an empty slug: it needs at least one letter a-z (diacritics allowed, as in é) or digit 0-9", quoteShort(p.Name))
	}

	version := firstNonEmpty(f.version, f.metaVersion)
	if version.value == "" {
		return nil, errorf(0, "pack has no version (set `version:` or `metadata.version:`)")
	}
	if !ValidVersion(version.value) {
		return nil, errorf(version.line, "version %s is not valid: use 1-64 of letters, digits, '.', '_', '+', '-'", quoteShort(version.value))
	}
	p.Version = version.value

	p.Scheme = firstNonEmpty(f.scheme, f.firstScheme).value
	p.Description = firstNonEmpty(field{value: strings.TrimSpace(opts.Description)}, f.description).value
	return p, nil
}

// nameFromFileName takes the base of an uploaded file's name, which browsers
// on Windows may send with backslashes, and drops the ".pact.md" suffix.
func nameFromFileName(fileName string) string {
	if i := strings.LastIndexAny(fileName, `/\`); i >= 0 {
		fileName = fileName[i+1:]
	}
	if n := len(fileName) - len(fileSuffix); n >= 0 && strings.EqualFold(fileName[n:], fileSuffix) {
		fileName = fileName[:n]
	}
	return strings.TrimSpace(fileName)
}

func firstNonEmpty(candidates ...field) field {
	for _, c := range candidates {
		if c.value != "" {
			return c
		}
	}
	return field{}
}

// quoteShort quotes a value for an error message, cut so that a hostile
// document cannot make the message as large as itself.
func quoteShort(s string) string {
	const maxRunes = 64
	if utf8.RuneCountInString(s) <= maxRunes {
		return fmt.Sprintf("%q", s)
	}
	runes := []rune(s)
	return fmt.Sprintf("%q", string(runes[:maxRunes])+"...")
}
