package packfmt

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// blockParser knows CommonMark's block structure only. Inline syntax never
// changes where fences are, so skipping it saves time and attack surface.
// goldmark parsers are safe for concurrent use.
var blockParser = parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...))

// packBlock is the found ```yaml pact:pack``` block.
type packBlock struct {
	line  int // document line of the opening fence
	lines []blockLine
}

// blockLine is one line of the block's content, with the container prefix
// (block quote markers, list indentation) already removed by goldmark.
type blockLine struct {
	text    []byte
	docLine int
}

// findPackBlock finds the one pact:pack fenced code block of a document.
func findPackBlock(src []byte) (*packBlock, error) {
	root := blockParser.Parse(text.NewReader(src))
	lines := lineCounter{src: src}

	var found []*ast.FencedCodeBlock
	var foundLines []int
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fence, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		if fence.Info != nil && isPackInfo(fence.Info.Segment.Value(src)) {
			found = append(found, fence)
			foundLines = append(foundLines, lines.lineAt(fence.Info.Segment.Start))
		}
		return ast.WalkSkipChildren, nil
	})

	switch len(found) {
	case 0:
		return nil, noBlockError(src)
	case 1:
	default:
		return nil, errorf(0, "found %d ```yaml pact:pack``` blocks (%s); a document must have exactly one",
			len(found), describeLines(foundLines))
	}

	fence := found[0]
	block := &packBlock{line: foundLines[0]}
	segments := fence.Lines()
	for i := 0; i < segments.Len(); i++ {
		seg := segments.At(i)
		block.lines = append(block.lines, blockLine{
			text:    seg.Value(src),
			docLine: lines.lineAt(seg.Start),
		})
	}
	return block, nil
}

// isPackInfo reports whether a fence's info string marks a pack block: first
// word yaml or yml, second word pact:pack, any further words ignored. As
// CommonMark says, backslash escapes and entities in the info string count.
func isPackInfo(info []byte) bool {
	info = util.ResolveNumericReferences(util.ResolveEntityNames(util.UnescapePunctuations(info)))
	words := strings.Fields(string(info))
	return len(words) >= 2 && (words[0] == "yaml" || words[0] == "yml") && words[1] == "pact:pack"
}

// noBlockError says what is missing and, when the document mentions
// pact:pack somewhere, where, since that is usually a fence written wrong
// (indented four spaces, another language word, inside another fence).
func noBlockError(src []byte) error {
	const missing = "no ```yaml pact:pack``` block found"
	if i := bytes.Index(src, []byte("pact:pack")); i >= 0 {
		return errorf(0, "%s (line %d mentions pact:pack, but not as the opening fence of a fenced code block with info string `yaml pact:pack`)",
			missing, lineOfOffset(src, i))
	}
	return errorf(0, "%s", missing)
}

// describeLines renders "lines 3 and 20" or "lines 1, 5, 9, 13, 17 and 4 more".
func describeLines(lines []int) string {
	const shown = 5
	parts := make([]string, 0, shown)
	for i, l := range lines {
		if i == shown {
			break
		}
		parts = append(parts, fmt.Sprint(l))
	}
	if len(lines) > shown {
		return fmt.Sprintf("lines %s and %d more", strings.Join(parts, ", "), len(lines)-shown)
	}
	last := len(parts) - 1
	return fmt.Sprintf("lines %s and %s", strings.Join(parts[:last], ", "), parts[last])
}

// lineCounter maps byte offsets to 1-based line numbers. Offsets are asked
// for in increasing order, so it counts forward from the last answer instead
// of indexing every line of a document up front.
type lineCounter struct {
	src  []byte
	pos  int
	line int
}

func (c *lineCounter) lineAt(offset int) int {
	offset = min(max(offset, 0), len(c.src))
	if offset < c.pos || c.line == 0 {
		c.pos, c.line = 0, 1
	}
	c.line += bytes.Count(c.src[c.pos:offset], []byte{'\n'})
	c.pos = offset
	return c.line
}

// maxNesting bounds how deeply block quotes and lists may nest. goldmark does
// work proportional to the open containers on every line and more when it
// opens many on one line, so a 1 MiB line of '>' would take many minutes;
// nobody nests a readable document anywhere near this deep.
const maxNesting = 100

// checkNesting rejects documents that could nest containers more than
// maxNesting deep. It overestimates, cheaply and without parsing: only lines
// with a container marker can open containers, each open container on a line
// takes a '>' or list marker or at least two columns of indentation, so
// markers plus half the indentation columns bounds the depth of every line.
func checkNesting(src []byte) error {
	line := 1
	for start := 0; start < len(src); line++ {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		if nestingBound(src[start:end]) > maxNesting {
			return errorf(line, "block quotes and lists nest more than %d levels deep", maxNesting)
		}
		start = end + 1
	}
	return nil
}

// nestingBound is an upper bound of the containers open on a line that has a
// container marker in its leading prefix, 0 for a line without one.
func nestingBound(line []byte) int {
	markers, columns := 0, 0
	for i := 0; i < len(line); {
		switch c := line[i]; {
		case c == ' ':
			columns++
			i++
		case c == '\t':
			columns += 4
			i++
		case c == '>':
			markers++
			i++
		case c == '-' || c == '+' || c == '*':
			if !endsMarker(line, i+1) {
				return boundOf(markers, columns)
			}
			markers++
			i++
		case '0' <= c && c <= '9':
			j := i
			for j < len(line) && '0' <= line[j] && line[j] <= '9' {
				j++
			}
			if j >= len(line) || (line[j] != '.' && line[j] != ')') || !endsMarker(line, j+1) {
				return boundOf(markers, columns)
			}
			markers++
			i = j + 1
		default:
			return boundOf(markers, columns)
		}
	}
	return boundOf(markers, columns)
}

// endsMarker reports whether a list marker ending before i is followed by
// what CommonMark requires after one: whitespace or the end of the line.
func endsMarker(line []byte, i int) bool {
	return i >= len(line) || line[i] == ' ' || line[i] == '\t' || line[i] == '\r'
}

func boundOf(markers, columns int) int {
	if markers == 0 {
		return 0
	}
	return markers + columns/2
}
