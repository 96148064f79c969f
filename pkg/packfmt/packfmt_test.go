package packfmt

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
)

// lines joins document lines with "\n" and ends the last one, so that a
// case's line numbers can be read off its position in the list.
func lines(ls ...string) string {
	return strings.Join(ls, "\n") + "\n"
}

// wantPack is the expected outcome of a successful Parse.
type wantPack struct {
	Name, Slug, Version, Scheme, Description string
	BlockLine                                int
}

func checkPack(t *testing.T, got *Pack, err error, want wantPack) {
	t.Helper()
	if err != nil {
		t.Fatalf("Parse: unexpected error: %v", err)
	}
	gotPack := wantPack{got.Name, got.Slug, got.Version, got.Scheme, got.Description, got.BlockLine}
	if gotPack != want {
		t.Errorf("Parse:\n got %+v\nwant %+v", gotPack, want)
	}
}

// checkError asserts err is an *Error on line wantLine whose message holds
// wantMsg.
func checkError(t *testing.T, err error, wantLine int, wantMsg string) {
	t.Helper()
	var perr *Error
	if !errors.As(err, &perr) {
		t.Fatalf("Parse: got error %v (%T), want *Error with %q", err, err, wantMsg)
	}
	if perr.Line != wantLine || !strings.Contains(perr.Message, wantMsg) {
		t.Errorf("Parse: got line %d, message %q\nwant line %d, message containing %q", perr.Line, perr.Message, wantLine, wantMsg)
	}
	if errors.Is(err, ErrTooLarge) {
		t.Errorf("Parse: %v must not be ErrTooLarge", err)
	}
}

func TestParseExampleDocument(t *testing.T) {
	doc, err := os.ReadFile("testdata/hello.pact.md")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(doc, Options{FileName: "hello.pact.md"})
	checkPack(t, got, err, wantPack{
		Name:        "Hello World",
		Slug:        "hello-world",
		Version:     "1.0.0",
		Scheme:      "pact/v1",
		Description: "The smallest useful pack: it greets whoever runs it.",
		BlockLine:   7,
	})
}

func TestParseFences(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want wantPack
	}{
		{
			name: "backtick fence after prose",
			doc:  lines("# Title", "", "Some prose.", "", "```yaml pact:pack", "name: Backtick", "version: 1.0.0", "```", "", "More prose."),
			want: wantPack{Name: "Backtick", Slug: "backtick", Version: "1.0.0", BlockLine: 5},
		},
		{
			name: "tilde fence",
			doc:  lines("~~~yaml pact:pack", "name: Tilde", "version: 2", "~~~"),
			want: wantPack{Name: "Tilde", Slug: "tilde", Version: "2", BlockLine: 1},
		},
		{
			name: "yml as the language word",
			doc:  lines("```yml pact:pack", "name: Yml", "version: 3", "```"),
			want: wantPack{Name: "Yml", Slug: "yml", Version: "3", BlockLine: 1},
		},
		{
			name: "further info words are ignored",
			doc:  lines("```yaml pact:pack title=\"demo\" {.wide}", "name: Extra", "version: 4", "```"),
			want: wantPack{Name: "Extra", Slug: "extra", Version: "4", BlockLine: 1},
		},
		{
			name: "spaces around and between info words",
			doc:  lines("```   yaml \t pact:pack   ", "name: Spaced", "version: 5", "```"),
			want: wantPack{Name: "Spaced", Slug: "spaced", Version: "5", BlockLine: 1},
		},
		{
			name: "backslash escape in the info string counts as CommonMark says",
			doc:  lines(`~~~yaml pact\:pack`, "name: Escaped", "version: 6", "~~~"),
			want: wantPack{Name: "Escaped", Slug: "escaped", Version: "6", BlockLine: 1},
		},
		{
			name: "tilde fence may have a backtick in its info string",
			doc:  lines("~~~yaml pact:pack `note`", "name: Tick", "version: 7", "~~~"),
			want: wantPack{Name: "Tick", Slug: "tick", Version: "7", BlockLine: 1},
		},
		{
			name: "longer fence holds a shorter one in its content",
			doc:  lines("````yaml pact:pack", "name: Long", "version: 8", "description: |", "  ```", "  inner", "  ```", "````"),
			want: wantPack{Name: "Long", Slug: "long", Version: "8", Description: "```\ninner\n```", BlockLine: 1},
		},
		{
			name: "closing fence longer than the opening one",
			doc:  lines("```yaml pact:pack", "name: Closing", "version: 9", "`````", "after: the block"),
			want: wantPack{Name: "Closing", Slug: "closing", Version: "9", BlockLine: 1},
		},
		{
			name: "fence indented three spaces loses that indentation from its content",
			doc:  lines("   ```yaml pact:pack", "   name: Indented", "   metadata:", "     id: x", "   version: 10", "   ```"),
			want: wantPack{Name: "Indented", Slug: "indented", Version: "10", BlockLine: 1},
		},
		{
			name: "fence in a block quote has the quote markers stripped",
			doc:  lines("Intro", "", "> Quoted:", ">", "> ```yaml pact:pack", "> name: Quoted", "> metadata:", ">   id: q", "> version: 11", "> ```"),
			want: wantPack{Name: "Quoted", Slug: "quoted", Version: "11", BlockLine: 5},
		},
		{
			name: "fence in a block quote after a tab",
			doc:  lines(">\t```yaml pact:pack", ">\tname: Tabbed", ">\tversion: 12", ">\t```"),
			want: wantPack{Name: "Tabbed", Slug: "tabbed", Version: "12", BlockLine: 1},
		},
		{
			name: "fence in a bullet list item has the item indentation stripped",
			doc:  lines("- first item", "- second item:", "", "  ```yaml pact:pack", "  name: Listed", "  metadata:", "    id: l", "  version: 13", "  ```"),
			want: wantPack{Name: "Listed", Slug: "listed", Version: "13", BlockLine: 4},
		},
		{
			name: "fence opening an ordered list item",
			doc:  lines("1. ```yaml pact:pack", "   name: Ordered", "   version: 14", "   ```"),
			want: wantPack{Name: "Ordered", Slug: "ordered", Version: "14", BlockLine: 1},
		},
		{
			name: "fence in a block quote in a list item",
			doc:  lines("- item", "", "  > ```yaml pact:pack", "  > name: Deep", "  > version: 15", "  > ```"),
			want: wantPack{Name: "Deep", Slug: "deep", Version: "15", BlockLine: 3},
		},
		{
			name: "an example block inside another fence is content, not a block",
			doc: lines("Example:", "", "````markdown", "```yaml pact:pack", "name: Example", "version: 0.0.1", "```", "````", "",
				"```yaml pact:pack", "name: Real", "version: 16", "```"),
			want: wantPack{Name: "Real", Slug: "real", Version: "16", BlockLine: 10},
		},
		{
			name: "a fence inside an HTML block is not a fence",
			doc:  lines("<pre>", "```yaml pact:pack", "name: Html", "version: 0", "```", "</pre>", "", "```yaml pact:pack", "name: Real", "version: 17", "```"),
			want: wantPack{Name: "Real", Slug: "real", Version: "17", BlockLine: 8},
		},
		{
			name: "an unclosed fence runs to the end of the document",
			doc:  lines("```yaml pact:pack", "name: Unclosed", "version: 18"),
			want: wantPack{Name: "Unclosed", Slug: "unclosed", Version: "18", BlockLine: 1},
		},
		{
			name: "a line without the quote marker ends a fence in a block quote",
			doc:  lines("> ```yaml pact:pack", "> version: 19", "name: Lazy"),
			want: wantPack{Name: "lazy-doc", Slug: "lazy-doc", Version: "19", BlockLine: 1},
		},
		{
			name: "an unclosed fence in a list item ends with the item",
			doc:  lines("- ```yaml pact:pack", "  version: 20", "", "not: in the block"),
			want: wantPack{Name: "lazy-doc", Slug: "lazy-doc", Version: "20", BlockLine: 1},
		},
		{
			name: "CRLF line endings",
			doc:  "Intro\r\n\r\n```yaml pact:pack\r\nname: Windows\r\nversion: 21\r\nscheme: pact/v1\r\n```\r\n",
			want: wantPack{Name: "Windows", Slug: "windows", Version: "21", Scheme: "pact/v1", BlockLine: 3},
		},
		{
			name: "a UTF-8 byte order mark before an opening fence",
			doc:  "\uFEFF```yaml pact:pack\nname: Bom\nversion: 22\n```\n",
			want: wantPack{Name: "Bom", Slug: "bom", Version: "22", BlockLine: 1},
		},
		{
			name: "the document may end without a newline",
			doc:  "```yaml pact:pack\nname: NoEOL\nversion: 23\n```",
			want: wantPack{Name: "NoEOL", Slug: "noeol", Version: "23", BlockLine: 1},
		},
		{
			name: "other fenced blocks around the pack block are ignored",
			doc:  lines("```yaml", "version: not-this", "```", "```sh", "echo pact:pack", "```", "```yaml pact:pack", "name: Others", "version: 24", "```"),
			want: wantPack{Name: "Others", Slug: "others", Version: "24", BlockLine: 7},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.doc), Options{FileName: "lazy-doc.pact.md"})
			checkPack(t, got, err, tt.want)
		})
	}
}

func TestParseBlockCount(t *testing.T) {
	block := func(version string) []string {
		return []string{"```yaml pact:pack", "version: " + version, "```"}
	}
	var seven []string
	for range 7 {
		seven = append(seven, block("1")...)
	}
	tests := []struct {
		name    string
		doc     string
		wantMsg string
	}{
		{
			name:    "empty document",
			doc:     "",
			wantMsg: "no ```yaml pact:pack``` block found",
		},
		{
			name:    "prose only",
			doc:     lines("# Just a README", "", "Nothing to see."),
			wantMsg: "no ```yaml pact:pack``` block found",
		},
		{
			name:    "yaml block without pact:pack",
			doc:     lines("```yaml", "version: 1", "```"),
			wantMsg: "no ```yaml pact:pack``` block found",
		},
		{
			name:    "indented code block is not a fence",
			doc:     lines("Text", "", "    ```yaml pact:pack", "    version: 1", "    ```"),
			wantMsg: "no ```yaml pact:pack``` block found (line 3 mentions pact:pack, but not as the opening fence",
		},
		{
			name:    "another language word",
			doc:     lines("", "```json pact:pack", "{}", "```"),
			wantMsg: "no ```yaml pact:pack``` block found (line 2 mentions pact:pack",
		},
		{
			name:    "the language word is case-sensitive",
			doc:     lines("```YAML pact:pack", "version: 1", "```"),
			wantMsg: "line 1 mentions pact:pack",
		},
		{
			name:    "pact:pack must be the second word",
			doc:     lines("```yaml title pact:pack", "version: 1", "```"),
			wantMsg: "line 1 mentions pact:pack",
		},
		{
			name:    "pact:pack must be the whole second word",
			doc:     lines("```yaml pact:packs", "version: 1", "```"),
			wantMsg: "line 1 mentions pact:pack",
		},
		{
			name:    "backtick fence cannot have a backtick in its info string",
			doc:     lines("```yaml pact:pack `x`", "version: 1", "```"),
			wantMsg: "line 1 mentions pact:pack",
		},
		{
			name:    "only an example inside another fence",
			doc:     lines("````markdown", "```yaml pact:pack", "version: 1", "```", "````"),
			wantMsg: "line 2 mentions pact:pack",
		},
		{
			name:    "two blocks",
			doc:     lines(append(append([]string{"# Two", ""}, block("1")...), append([]string{"", "text", ""}, block("2")...)...)...),
			wantMsg: "found 2 ```yaml pact:pack``` blocks (lines 3 and 9); a document must have exactly one",
		},
		{
			name:    "three blocks of different fence kinds",
			doc:     lines("```yaml pact:pack", "```", "~~~yml pact:pack", "~~~", "> ```yaml pact:pack", "> ```"),
			wantMsg: "found 3 ```yaml pact:pack``` blocks (lines 1, 3 and 5); a document must have exactly one",
		},
		{
			name:    "seven blocks",
			doc:     lines(seven...),
			wantMsg: "found 7 ```yaml pact:pack``` blocks (lines 1, 4, 7, 10, 13 and 2 more); a document must have exactly one",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc), Options{})
			checkError(t, err, 0, tt.wantMsg)
		})
	}
}

func TestParseYAMLErrors(t *testing.T) {
	tests := []struct {
		name     string
		doc      string
		wantLine int
		wantMsg  string
	}{
		{
			name:     "mapping value in the wrong place",
			doc:      lines("# T", "", "```yaml pact:pack", "name: x", "version: 1", "bad: key: value", "```"),
			wantLine: 6,
			wantMsg:  "pact:pack block is not valid YAML: mapping values are not allowed in this context",
		},
		{
			name:     "error on the first content line",
			doc:      lines("", "```yaml pact:pack", "bad: key: value", "```"),
			wantLine: 3,
			wantMsg:  "pact:pack block is not valid YAML: mapping values are not allowed",
		},
		{
			name:     "unclosed flow list is reported where it opens",
			doc:      lines("```yaml pact:pack", "name: x", "version: 1", "tags: [a, b", "other: 1", "```"),
			wantLine: 4,
			wantMsg:  "pact:pack block is not valid YAML: did not find expected ',' or ']'",
		},
		{
			name:     "a list entry in a mapping",
			doc:      lines("text", "", "```yaml pact:pack", "version: 1", "- stray", "```"),
			wantLine: 5,
			wantMsg:  "pact:pack block is not valid YAML: did not find expected key",
		},
		{
			name:     "tab indentation",
			doc:      lines("```yaml pact:pack", "version: 1", "tags:", "\t- a", "```"),
			wantLine: 4,
			wantMsg:  "pact:pack block is not valid YAML: found character that cannot start any token",
		},
		{
			name:     "unterminated quote",
			doc:      lines("```yaml pact:pack", "version: 1", "name: \"open", "```"),
			wantLine: 3,
			wantMsg:  "pact:pack block is not valid YAML: found unexpected end of stream",
		},
		{
			name:     "error line inside a block quote",
			doc:      lines("# Q", "", "> ```yaml pact:pack", "> version: 1", "> bad: key: value", "> ```"),
			wantLine: 5,
			wantMsg:  "mapping values are not allowed",
		},
		{
			name:     "error line inside a list item",
			doc:      lines("- item", "", "  ```yaml pact:pack", "  version: 1", "  tags: [a", "", "  x: 1", "  ```"),
			wantLine: 5,
			wantMsg:  "did not find expected ',' or ']'",
		},
		{
			name:     "YAML line break that markdown does not see",
			doc:      lines("```yaml pact:pack", "version: 1\u2028bad: key: value", "name: x", "```"),
			wantLine: 2,
			wantMsg:  "mapping values are not allowed",
		},
		{
			name:     "unknown alias",
			doc:      lines("```yaml pact:pack", "name: x", "version: *missing", "```"),
			wantLine: 3,
			wantMsg:  "pact:pack block is not valid YAML: unknown anchor 'missing' referenced",
		},
		{
			name:     "alias inside the node it names",
			doc:      lines("```yaml pact:pack", "version: 1", "loop: &a [x, *a]", "```"),
			wantLine: 3,
			wantMsg:  "alias *a refers to a node that contains it",
		},
		{
			name: "aliases that expand hugely",
			doc: lines("```yaml pact:pack", "version: 1",
				"a: &a [x, x, x, x, x, x, x, x, x, x]",
				"b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]",
				"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]",
				"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]",
				"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]",
				"f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]",
				"g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]",
				"h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]",
				"i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]",
				"```"),
			wantLine: 1,
			wantMsg:  "pact:pack block's YAML aliases expand to more than 100000 extra nodes",
		},
		{
			name:     "10,001 nested flow lists",
			doc:      lines("```yaml pact:pack", "version: 1", "deep: "+strings.Repeat("[", 10_001)+strings.Repeat("]", 10_001), "```"),
			wantLine: 3,
			wantMsg:  "pact:pack block is not valid YAML: exceeded max depth of 10000",
		},
		{
			name:     "10,000 unclosed flow lists end at the closing fence",
			doc:      lines("```yaml pact:pack", strings.Repeat("[", 10_000), "```"),
			wantLine: 3,
			wantMsg:  "pact:pack block is not valid YAML: did not find expected node content",
		},
		{
			name:     "two YAML documents",
			doc:      lines("```yaml pact:pack", "version: 1", "---", "version: 2", "```"),
			wantLine: 3,
			wantMsg:  "pact:pack block must hold one YAML document, but a second one starts here",
		},
		{
			name:     "a list is not a mapping",
			doc:      lines("# L", "", "```yaml pact:pack", "", "- name: x", "- version: 1", "```"),
			wantLine: 5,
			wantMsg:  "pact:pack block must be a YAML mapping (`key: value` lines), not a list",
		},
		{
			name:     "text is not a mapping",
			doc:      lines("```yaml pact:pack", "just some words", "```"),
			wantLine: 2,
			wantMsg:  "pact:pack block must be a YAML mapping (`key: value` lines), not text",
		},
		{
			name:     "empty block",
			doc:      lines("", "```yaml pact:pack", "```"),
			wantLine: 2,
			wantMsg:  "pact:pack block is empty",
		},
		{
			name:     "block of comments",
			doc:      lines("```yaml pact:pack", "# version: 1", "```"),
			wantLine: 1,
			wantMsg:  "pact:pack block is empty",
		},
		{
			name:     "block of null",
			doc:      lines("```yaml pact:pack", "~", "```"),
			wantLine: 1,
			wantMsg:  "pact:pack block is empty",
		},
		{
			name:     "merge of something that is not a mapping",
			doc:      lines("```yaml pact:pack", "base: &b [1, 2]", "<<: *b", "```"),
			wantLine: 3,
			wantMsg:  "a merge key (<<) needs a mapping or a list of mappings",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc), Options{Name: "n"})
			checkError(t, err, tt.wantLine, tt.wantMsg)
		})
	}
}

func TestParseFieldTypes(t *testing.T) {
	tests := []struct {
		name     string
		yaml     []string // block content; the fence opens on line 1
		wantLine int
		wantMsg  string
	}{
		{"version is a mapping", []string{"version:", "  major: 1"}, 3, "`version` must be text, not a mapping"},
		{"version is a list", []string{"version: [1, 0]"}, 2, "`version` must be text, not a list"},
		{"name is a list", []string{"version: 1", "name: [a]"}, 3, "`name` must be text, not a list"},
		{"scheme is a mapping", []string{"version: 1", "scheme: {id: x}"}, 3, "`scheme` must be text, not a mapping"},
		{"description is a list", []string{"version: 1", "description:", "  - a"}, 4, "`description` must be text, not a list"},
		{"metadata is text", []string{"version: 1", "metadata: x"}, 3, "`metadata` must be a YAML mapping, not text"},
		{"metadata.version is a list", []string{"metadata:", "  version: [1]"}, 3, "`metadata.version` must be text, not a list"},
		{"metadata.id is a mapping", []string{"version: 1", "metadata:", "  id: {a: b}"}, 4, "`metadata.id` must be text, not a mapping"},
		{"schemes is text", []string{"version: 1", "schemes: pact/v1"}, 3, "`schemes` must be a YAML list, not text"},
		{"first scheme is a mapping", []string{"version: 1", "schemes:", "  - id: x"}, 4, "`schemes[0]` must be text, not a mapping"},
		{"alias to a mapping where text belongs", []string{"m: &m {a: 1}", "version: *m"}, 3, "`version` must be text, not a mapping"},
		{"version given twice", []string{"version: 1", "name: x", "version: 2"}, 4, "key `version` appears more than once (lines 2 and 4)"},
		{"metadata.name given twice", []string{"version: 1", "metadata:", "  name: a", "  name: b"}, 5, "key `metadata.name` appears more than once (lines 4 and 5)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := lines(append(append([]string{"```yaml pact:pack"}, tt.yaml...), "```")...)
			_, err := Parse([]byte(doc), Options{Name: "override does not excuse a bad document"})
			checkError(t, err, tt.wantLine, tt.wantMsg)
		})
	}
}

func TestParseDerivedFields(t *testing.T) {
	tests := []struct {
		name string
		yaml []string // block content
		opts Options
		want wantPack // BlockLine is always 1
	}{
		// name
		{"request name wins", []string{"name: Doc Name", "version: 1"}, Options{Name: "Request Name", FileName: "file.pact.md"},
			wantPack{Name: "Request Name", Slug: "request-name", Version: "1"}},
		{"blank request name falls through", []string{"name: Doc Name", "version: 1"}, Options{Name: "  \t "},
			wantPack{Name: "Doc Name", Slug: "doc-name", Version: "1"}},
		{"pack name before metadata.name", []string{"name: Top", "metadata: {name: Meta, id: meta-id}", "version: 1"}, Options{},
			wantPack{Name: "Top", Slug: "top", Version: "1"}},
		{"metadata.name before metadata.id", []string{"metadata: {name: Meta, id: meta-id}", "version: 1"}, Options{},
			wantPack{Name: "Meta", Slug: "meta", Version: "1"}},
		{"empty name falls through", []string{"name: ''", "metadata: {name: '', id: meta-id}", "version: 1"}, Options{FileName: "f.pact.md"},
			wantPack{Name: "meta-id", Slug: "meta-id", Version: "1"}},
		{"null name falls through", []string{"name: ~", "metadata: {name: null, id: the-id}", "version: 1"}, Options{},
			wantPack{Name: "the-id", Slug: "the-id", Version: "1"}},
		{"file name is the last resort", []string{"version: 1"}, Options{FileName: "My Pack.pact.md"},
			wantPack{Name: "My Pack", Slug: "my-pack", Version: "1"}},
		{"file name with a directory", []string{"version: 1"}, Options{FileName: "docs/packs/tool.pact.md"},
			wantPack{Name: "tool", Slug: "tool", Version: "1"}},
		{"file name with a Windows directory", []string{"version: 1"}, Options{FileName: `C:\Users\me\win.pact.md`},
			wantPack{Name: "win", Slug: "win", Version: "1"}},
		{"file name suffix in capitals", []string{"version: 1"}, Options{FileName: "LOUD.PACT.MD"},
			wantPack{Name: "LOUD", Slug: "loud", Version: "1"}},
		{"file name without the suffix is kept whole", []string{"version: 1"}, Options{FileName: "notes.md"},
			wantPack{Name: "notes.md", Slug: "notes-md", Version: "1"}},
		{"names are trimmed", []string{"name: '  Padded  '", "version: 1"}, Options{},
			wantPack{Name: "Padded", Slug: "padded", Version: "1"}},
		{"number as a name", []string{"name: 2048", "version: 1"}, Options{},
			wantPack{Name: "2048", Slug: "2048", Version: "1"}},

		// version
		{"1.0 stays 1.0", []string{"name: v", "version: 1.0"}, Options{}, wantPack{Name: "v", Slug: "v", Version: "1.0"}},
		{"1.10 stays 1.10", []string{"name: v", "version: 1.10"}, Options{}, wantPack{Name: "v", Slug: "v", Version: "1.10"}},
		{"hex stays hex", []string{"name: v", "version: 0x1F"}, Options{}, wantPack{Name: "v", Slug: "v", Version: "0x1F"}},
		{"exponent stays as written", []string{"name: v", "version: 1e3"}, Options{}, wantPack{Name: "v", Slug: "v", Version: "1e3"}},
		{"quoted version", []string{"name: v", `version: "2.0"`}, Options{}, wantPack{Name: "v", Slug: "v", Version: "2.0"}},
		{"semver with pre-release and build", []string{"name: v", "version: 1.0.0-rc.1+build_5"}, Options{},
			wantPack{Name: "v", Slug: "v", Version: "1.0.0-rc.1+build_5"}},
		{"version is trimmed", []string{"name: v", "version: '  3.1  '"}, Options{}, wantPack{Name: "v", Slug: "v", Version: "3.1"}},
		{"metadata.version when version is absent", []string{"name: v", "metadata:", "  version: 0.9"}, Options{},
			wantPack{Name: "v", Slug: "v", Version: "0.9"}},
		{"metadata.version when version is empty", []string{"name: v", "version: ''", "metadata: {version: 0.8}"}, Options{},
			wantPack{Name: "v", Slug: "v", Version: "0.8"}},
		{"version before metadata.version", []string{"name: v", "version: 2", "metadata: {version: 1}"}, Options{},
			wantPack{Name: "v", Slug: "v", Version: "2"}},
		{"version through an alias", []string{"name: v", "base: &v 4.5.6", "version: *v"}, Options{},
			wantPack{Name: "v", Slug: "v", Version: "4.5.6"}},

		// scheme
		{"no scheme", []string{"name: s", "version: 1"}, Options{}, wantPack{Name: "s", Slug: "s", Version: "1"}},
		{"scheme", []string{"name: s", "version: 1", "scheme: pact/v1"}, Options{}, wantPack{Name: "s", Slug: "s", Version: "1", Scheme: "pact/v1"}},
		{"first of schemes", []string{"name: s", "version: 1", "schemes:", "  - pact/v2", "  - pact/v1"}, Options{},
			wantPack{Name: "s", Slug: "s", Version: "1", Scheme: "pact/v2"}},
		{"scheme before schemes", []string{"name: s", "version: 1", "scheme: one", "schemes: [two]"}, Options{},
			wantPack{Name: "s", Slug: "s", Version: "1", Scheme: "one"}},
		{"empty schemes", []string{"name: s", "version: 1", "schemes: []"}, Options{}, wantPack{Name: "s", Slug: "s", Version: "1"}},

		// description
		{"request description wins", []string{"name: d", "version: 1", "description: From doc"}, Options{Description: " From request "},
			wantPack{Name: "d", Slug: "d", Version: "1", Description: "From request"}},
		{"document description", []string{"name: d", "version: 1", "description: |", "  Two", "  lines"}, Options{},
			wantPack{Name: "d", Slug: "d", Version: "1", Description: "Two\nlines"}},
		{"no description", []string{"name: d", "version: 1"}, Options{}, wantPack{Name: "d", Slug: "d", Version: "1"}},

		// merge keys
		{"merged values fill in absent keys", []string{"defaults: &d {version: 5.0, scheme: merged, name: Merged}", "<<: *d", "name: Own"}, Options{},
			wantPack{Name: "Own", Slug: "own", Version: "5.0", Scheme: "merged"}},
		{"first merged mapping wins", []string{"a: &a {version: 1}", "b: &b {version: 2}", "<<: [*a, *b]", "name: m"}, Options{},
			wantPack{Name: "m", Slug: "m", Version: "1"}},
		{"merge into metadata", []string{"base: &base {id: merged-id, version: 7}", "metadata:", "  <<: *base"}, Options{},
			wantPack{Name: "merged-id", Slug: "merged-id", Version: "7"}},

		// other keys are left alone
		{"unknown keys and nested data", []string{"name: x", "version: 1", "requires: [a, b]", "config: {deep: {deeper: [1, 2, {k: v}]}}"}, Options{},
			wantPack{Name: "x", Slug: "x", Version: "1"}},
		{"a few harmless aliases", []string{"name: x", "version: 1", "base: &b {k: v}", "one: *b", "two: *b"}, Options{},
			wantPack{Name: "x", Slug: "x", Version: "1"}},
		{"10,000 nested flow lists", []string{"name: x", "version: 1", "deep: " + strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000)}, Options{},
			wantPack{Name: "x", Slug: "x", Version: "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := lines(append(append([]string{"```yaml pact:pack"}, tt.yaml...), "```")...)
			got, err := Parse([]byte(doc), tt.opts)
			tt.want.BlockLine = 1
			checkPack(t, got, err, tt.want)
		})
	}
}

func TestParseDerivedFieldErrors(t *testing.T) {
	tests := []struct {
		name     string
		yaml     []string
		opts     Options
		wantLine int
		wantErr  string // the whole Error() text
	}{
		{"no version", []string{"name: x"}, Options{}, 0,
			"pack has no version (set `version:` or `metadata.version:`)"},
		{"null version", []string{"name: x", "version: ~"}, Options{}, 0,
			"pack has no version (set `version:` or `metadata.version:`)"},
		{"blank version", []string{"name: x", "version: '   '"}, Options{}, 0,
			"pack has no version (set `version:` or `metadata.version:`)"},
		{"version with a space", []string{"name: x", "", "version: x y"}, Options{}, 4,
			`line 4: version "x y" is not valid: use 1-64 of letters, digits, '.', '_', '+', '-'`},
		{"version with a slash", []string{"name: x", "version: 1.0/2"}, Options{}, 3,
			`line 3: version "1.0/2" is not valid: use 1-64 of letters, digits, '.', '_', '+', '-'`},
		{"version with a non-ASCII letter", []string{"name: x", "version: 1.0-ü"}, Options{}, 3,
			`line 3: version "1.0-ü" is not valid: use 1-64 of letters, digits, '.', '_', '+', '-'`},
		{"version of 65 characters", []string{"name: x", "version: " + strings.Repeat("1", 65)}, Options{}, 3,
			`line 3: version "` + strings.Repeat("1", 64) + `..." is not valid: use 1-64 of letters, digits, '.', '_', '+', '-'`},
		{"metadata.version is checked too", []string{"name: x", "metadata:", "  version: bad version"}, Options{}, 4,
			`line 4: version "bad version" is not valid: use 1-64 of letters, digits, '.', '_', '+', '-'`},
		{"name without letters or digits", []string{"name: '!!!'", "version: 1"}, Options{}, 2,
			`line 2: name "!!!" gives an empty slug: it needs at least one letter a-z (diacritics allowed, as in é) or digit 0-9`},
		{"request name without letters or digits", []string{"name: ok", "version: 1"}, Options{Name: "---"}, 0,
			`name "---" gives an empty slug: it needs at least one letter a-z (diacritics allowed, as in é) or digit 0-9`},
		{"name of non-ASCII letters only", []string{"metadata: {id: Ωμέγα}", "version: 1"}, Options{}, 2,
			`line 2: name "Ωμέγα" gives an empty slug: it needs at least one letter a-z (diacritics allowed, as in é) or digit 0-9`},
		{"no name anywhere", []string{"version: 1"}, Options{FileName: "dir/.pact.md"}, 0,
			"pack has no name (set `name:` or `metadata.name:`, or give a name when publishing)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := lines(append(append([]string{"```yaml pact:pack"}, tt.yaml...), "```")...)
			_, err := Parse([]byte(doc), tt.opts)
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("Parse: got %v (%T), want *Error %q", err, err, tt.wantErr)
			}
			if perr.Line != tt.wantLine || err.Error() != tt.wantErr {
				t.Errorf("Parse:\n got line %d, %q\nwant line %d, %q", perr.Line, err.Error(), tt.wantLine, tt.wantErr)
			}
		})
	}
}

func TestParseLimits(t *testing.T) {
	// padded makes a valid document of exactly size bytes.
	padded := func(size int) []byte {
		head := lines("```yaml pact:pack", "name: big", "version: 1", "```", "")
		return []byte(head + strings.Repeat("x", size-len(head)))
	}
	tests := []struct {
		name     string
		doc      []byte
		maxBytes int64
		tooLarge bool
	}{
		{"at the default limit", padded(DefaultMaxBytes), 0, false},
		{"one byte over the default limit", padded(DefaultMaxBytes + 1), 0, true},
		{"at a configured limit", padded(200), 200, false},
		{"one byte over a configured limit", padded(201), 200, true},
		{"a configured limit above the default", padded(DefaultMaxBytes + 1), 2 * DefaultMaxBytes, false},
		{"a negative limit means the default", padded(DefaultMaxBytes + 1), -1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.doc, Options{MaxBytes: tt.maxBytes})
			if !tt.tooLarge {
				checkPack(t, got, err, wantPack{Name: "big", Slug: "big", Version: "1", BlockLine: 1})
				return
			}
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("Parse: got %v, want ErrTooLarge", err)
			}
			var perr *Error
			if errors.As(err, &perr) {
				t.Errorf("Parse: ErrTooLarge must not be an *Error (the server answers 413, not 400)")
			}
		})
	}
}

func TestParseRejectsNonText(t *testing.T) {
	valid := lines("```yaml pact:pack", "name: t", "version: 1", "```")
	tests := []struct {
		name     string
		doc      string
		wantLine int
		wantErr  string
	}{
		{"invalid UTF-8 in prose", "# Title\n\nbad \xff byte\n" + valid, 3, "line 3: document is not valid UTF-8"},
		{"invalid UTF-8 in the block", lines("```yaml pact:pack", "name: \xc3\x28", "version: 1", "```"), 2, "line 2: document is not valid UTF-8"},
		{"truncated multi-byte character at the end", valid + "\xe2\x82", 5, "line 5: document is not valid UTF-8"},
		{"UTF-16 text", "\xff\xfe#\x00 \x00", 1, "line 1: document is not valid UTF-8"},
		{"NUL byte", valid + "a\x00b\n", 5, "line 5: document contains a NUL byte"},
		{"block quotes nested too deeply", "ok\n" + strings.Repeat(">", 101) + " deep\n" + valid, 2, "line 2: block quotes and lists nest more than 100 levels deep"},
		{"lists nested too deeply on one line", strings.Repeat("1. ", 101) + "x\n" + valid, 1, "line 1: block quotes and lists nest more than 100 levels deep"},
		{"a list marker after 200 columns counts as possible nesting", "- x\n" + strings.Repeat(" ", 200) + "- y\n" + valid, 2, "line 2: block quotes and lists nest more than 100 levels deep"},
		{"a megabyte of '>'", strings.Repeat(">", DefaultMaxBytes), 1, "line 1: block quotes and lists nest more than 100 levels deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc), Options{})
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("Parse: got %v (%T), want *Error %q", err, err, tt.wantErr)
			}
			if perr.Line != tt.wantLine || err.Error() != tt.wantErr {
				t.Errorf("Parse:\n got line %d, %q\nwant line %d, %q", perr.Line, err.Error(), tt.wantLine, tt.wantErr)
			}
		})
	}
}

// TestParseAcceptsBusyDocuments checks that nesting within the limit and
// markdown that merely looks like markers still parse.
func TestParseAcceptsBusyDocuments(t *testing.T) {
	block := lines("```yaml pact:pack", "name: busy", "version: 1", "```")
	tests := []struct {
		name string
		doc  string
	}{
		{"block quotes nested 50 deep", strings.Repeat(">", 50) + " deep\n\n" + block},
		{"long thematic breaks", strings.Repeat("-", 500) + "\n" + strings.Repeat("*", 500) + "\n\n" + block},
		{"deeply indented lines without markers", strings.Repeat(" ", 5000) + "code\n\n" + block},
		{"ten thousand brackets of prose", strings.Repeat("[", 10_000) + "\n\n" + block},
		{"many other fences", strings.Repeat("```\n", 10_000) + "\n" + block},
		{"a megabyte of nested block quote lines", strings.Repeat(strings.Repeat(">", 99)+" x\n", (DefaultMaxBytes-200)/102) + "\n" + block},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.doc), Options{})
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got.Name != "busy" || got.Version != "1" {
				t.Errorf("Parse: got %+v, want name busy, version 1", got)
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"without a line", &Error{Message: "no ```yaml pact:pack``` block found"}, "no ```yaml pact:pack``` block found"},
		{"with a line", &Error{Line: 7, Message: "pact:pack block is not valid YAML: x"}, "line 7: pact:pack block is not valid YAML: x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestParseConcurrently shares the package's markdown parser between
// goroutines; run with -race.
func TestParseConcurrently(t *testing.T) {
	doc, err := os.ReadFile("testdata/hello.pact.md")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for range 20 {
				p, err := Parse(doc, Options{})
				if err != nil {
					errs <- err
					return
				}
				if p.Slug != "hello-world" {
					errs <- errors.New("wrong slug " + p.Slug)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
