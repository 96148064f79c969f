package packfmt

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	hello, err := os.ReadFile("testdata/hello.pact.md")
	if err != nil {
		f.Fatal(err)
	}
	seeds := []string{
		string(hello),
		"",
		"```yaml pact:pack\nname: x\nversion: 1\n```\n",
		"~~~yml pact:pack extra\nversion: 1.0\n~~~\n",
		"> ```yaml pact:pack\n> name: q\n> version: 2\n> ```\n",
		"- ```yaml pact:pack\n  version: 3\n  ```\n",
		"````markdown\n```yaml pact:pack\nversion: 1\n```\n````\n",
		"```yaml pact:pack\nversion: 1\n```\n```yaml pact:pack\nversion: 2\n```\n",
		"```yaml pact:pack\n- a\n```\n",
		"```yaml pact:pack\nversion: [\n```\n",
		"```yaml pact:pack\na: &a [*a]\n```\n",
		"```yaml pact:pack\nd: &d {version: 1}\n<<: *d\nmetadata: {id: m}\n```\n",
		"```yaml pact:pack\nversion: 1\u2028bad: a: b\n```\n",
		"\uFEFF```yaml pact:pack\r\nversion: 1\r\nschemes: [s]\r\n```\r\n",
		strings.Repeat(">", 120) + "\n",
		strings.Repeat("1. ", 50) + "```yaml pact:pack\n",
		"```yaml pact:pack\nv: " + strings.Repeat("[", 100) + "\n```\n",
		"    ```yaml pact:pack\n    version: 1\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s), "", "")
	}
	f.Add([]byte("```yaml pact:pack\nversion: 1\n```\n"), "Request Name", "dir/file.pact.md")

	f.Fuzz(func(t *testing.T, doc []byte, name, fileName string) {
		pack, err := Parse(doc, Options{Name: name, FileName: fileName, MaxBytes: 64 << 10})
		if err != nil {
			var perr *Error
			switch {
			case errors.Is(err, ErrTooLarge):
			case !errors.As(err, &perr):
				t.Fatalf("error %v is %T, want *Error", err, err)
			case perr.Message == "" || perr.Line < 0:
				t.Fatalf("error %#v has no message or a negative line", perr)
			}
			return
		}
		if !ValidVersion(pack.Version) {
			t.Errorf("accepted invalid version %q", pack.Version)
		}
		if pack.Slug == "" || pack.Slug != Slug(pack.Name) {
			t.Errorf("slug %q does not match name %q", pack.Slug, pack.Name)
		}
		if pack.BlockLine < 1 || pack.BlockLine > strings.Count(string(doc), "\n")+1 {
			t.Errorf("block line %d outside the document", pack.BlockLine)
		}
		for _, s := range []string{pack.Name, pack.Version, pack.Scheme, pack.Description} {
			if s != strings.TrimSpace(s) {
				t.Errorf("derived value %q is not trimmed", s)
			}
		}
	})
}

// BenchmarkParse parses a typical pack document of about 3 KB.
func BenchmarkParse(b *testing.B) {
	doc := benchmarkDocument()
	if len(doc) < 2800 || len(doc) > 3300 {
		b.Fatalf("benchmark document is %d bytes, want about 3 KB", len(doc))
	}
	opts := Options{FileName: "bench.pact.md"}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(doc, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func benchmarkDocument() []byte {
	var sb strings.Builder
	sb.WriteString(lines(
		"# Release Notes Writer",
		"",
		"Turns a list of merged pull requests into release notes that people",
		"actually read. Works with any forge that can export JSON.",
		"",
		"```yaml pact:pack",
		"name: Release Notes Writer",
		"version: 2.4.1",
		"schemes:",
		"  - pact/v1",
		"  - pact/v0",
		"description: >-",
		"  Groups merged changes by label, writes a summary per group and",
		"  links every change to its pull request.",
		"metadata:",
		"  id: release-notes",
		"  authors: [Alice Example, Bob Example]",
		"  license: Apache-2.0",
		"inputs:",
		"  - {name: changes, type: file, required: true}",
		"  - {name: labels, type: list, default: [feature, fix, docs]}",
		"```",
		"",
	))
	section := lines(
		"## Section",
		"",
		"- Collect the **merged** pull requests since the last tag.",
		"- Group them by label; unlabelled changes go under *Other*.",
		"- Write one [summary](https://example.com/docs) per group.",
		"",
		"> Keep it short: a release note is read in a hurry.",
		"",
		"```sh",
		"pact get alice/release-notes -o notes.pact.md",
		"```",
		"",
	)
	for sb.Len()+len(section) <= 3000 {
		sb.WriteString(section)
	}
	return []byte(sb.String())
}
