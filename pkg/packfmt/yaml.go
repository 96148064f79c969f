package packfmt

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// field is one derived string with the document line it came from (0 when it
// did not come from the document).
type field struct {
	value string
	line  int
}

// packFields are the values the derivation rules read from the block.
type packFields struct {
	name, version, scheme, description field
	firstScheme                        field
	metaName, metaID, metaVersion      field
}

// maxAliasExpansion bounds how many YAML nodes aliases may add when expanded.
// Decoding into yaml.Node does not expand them, but a registry should not
// serve "billion laughs" documents to clients whose decoders do.
const maxAliasExpansion = 100_000

// blockYAML is the content of the pack block with a map from YAML's line
// numbers to the document's.
type blockYAML struct {
	block    *packBlock
	content  []byte
	docLines []int // docLines[i] is the document line of YAML line i+1
}

func readPackYAML(block *packBlock) (packFields, error) {
	y := newBlockYAML(block)
	root, err := y.decode()
	if err != nil {
		return packFields{}, err
	}
	if err := y.checkAliases(root); err != nil {
		return packFields{}, err
	}
	return y.fields(root)
}

func newBlockYAML(block *packBlock) *blockYAML {
	y := &blockYAML{block: block}
	for _, l := range block.lines {
		y.content = append(y.content, l.text...)
		// YAML also breaks lines at a lone CR, NEL, LS and PS, which markdown
		// does not: those extra YAML lines all sit on the same document line.
		for range yamlBreaks(l.text) {
			y.docLines = append(y.docLines, l.docLine)
		}
	}
	return y
}

// yamlBreaks counts the YAML lines that start in one content line: one, plus
// one for every YAML line break before the line's final newline.
func yamlBreaks(line []byte) int {
	lines := 1
	for i := 0; i < len(line); i++ {
		size := 0
		switch {
		case line[i] == '\r' && i+1 < len(line) && line[i+1] == '\n':
			size = 2
		case line[i] == '\r' || line[i] == '\n':
			size = 1
		case line[i] == 0xC2 && i+1 < len(line) && line[i+1] == 0x85: // NEL
			size = 2
		case line[i] == 0xE2 && i+2 < len(line) && line[i+1] == 0x80 && (line[i+2] == 0xA8 || line[i+2] == 0xA9): // LS, PS
			size = 3
		default:
			continue
		}
		if i+size < len(line) {
			lines++
		}
		i += size - 1
	}
	return lines
}

// docLine translates a 1-based YAML line into a document line.
func (y *blockYAML) docLine(yamlLine int) int {
	switch {
	case yamlLine < 1:
		return y.block.line
	case yamlLine <= len(y.docLines):
		return y.docLines[yamlLine-1]
	case len(y.docLines) > 0:
		// Past the last content line: the closing fence or the end.
		return y.docLines[len(y.docLines)-1] + 1
	default:
		return y.block.line + 1
	}
}

// decode parses the block into the root node of its one YAML document.
func (y *blockYAML) decode() (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(y.content))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, y.emptyError()
		}
		return nil, y.syntaxError(err)
	}
	var second yaml.Node
	switch err := dec.Decode(&second); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, y.syntaxError(err)
	default:
		return nil, errorf(y.docLine(second.Line), "pact:pack block must hold one YAML document, but a second one starts here")
	}

	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, y.emptyError()
	}
	root := doc.Content[0]
	switch {
	case root.Kind == yaml.MappingNode:
		return root, nil
	case root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null":
		return nil, y.emptyError()
	default:
		return nil, errorf(y.docLine(root.Line), "pact:pack block must be a YAML mapping (`key: value` lines), not %s", kindName(root))
	}
}

func (y *blockYAML) emptyError() error {
	return errorf(y.block.line, "pact:pack block is empty; it must be a YAML mapping with at least `version:`")
}

// yamlParserProblems are the messages of yaml.v3's parser (as opposed to its
// scanner). For these it reports the 0-based line of the problem's context,
// so one is added; scanner messages carry 1-based lines.
var yamlParserProblems = []string{
	"did not find expected <stream-start>",
	"did not find expected <document start>",
	"found undefined tag handle",
	"did not find expected node content",
	"did not find expected '-' indicator",
	"did not find expected key",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found duplicate %TAG directive",
}

// syntaxError turns a yaml.v3 error into an *Error on the document line.
func (y *blockYAML) syntaxError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	yamlLine := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, problem, ok := strings.Cut(rest, ": "); ok {
			if n, convErr := strconv.Atoi(num); convErr == nil {
				yamlLine, msg = n, problem
			}
		}
	}
	isParserProblem := false
	for _, p := range yamlParserProblems {
		if msg == p {
			isParserProblem = true
		}
	}

	line := y.block.line
	switch {
	case yamlLine > 0 && isParserProblem:
		line = y.docLine(yamlLine + 1)
	case yamlLine > 0:
		line = y.docLine(yamlLine)
	case strings.HasPrefix(msg, "unknown anchor '"):
		line = y.lineMentioning("*" + strings.TrimSuffix(strings.TrimPrefix(msg, "unknown anchor '"), "' referenced"))
	case isParserProblem || !isDecoderProblem(msg):
		// yaml.v3 leaves out the line when it is the first one.
		line = y.docLine(1)
	}
	return errorf(line, "pact:pack block is not valid YAML: %s", msg)
}

// isDecoderProblem reports messages of yaml.v3 that are not about syntax and
// so carry no position.
func isDecoderProblem(msg string) bool {
	for _, prefix := range []string{"unknown anchor", "anchor '", "document contains excessive aliasing", "attempted to go past", "cannot decode"} {
		if strings.HasPrefix(msg, prefix) {
			return true
		}
	}
	return false
}

// lineMentioning is the document line of the first content line holding s,
// or the block's line.
func (y *blockYAML) lineMentioning(s string) int {
	for _, l := range y.block.lines {
		if bytes.Contains(l.text, []byte(s)) {
			return l.docLine
		}
	}
	return y.block.line
}

// checkAliases rejects aliases that refer to a node containing themselves and
// aliases whose expansion would add more than maxAliasExpansion nodes. It
// walks the tree with its own stack, since YAML nests up to 10,000 deep.
func (y *blockYAML) checkAliases(root *yaml.Node) error {
	// Expanded sizes grow exponentially with nested aliases; they saturate
	// far above any limit instead of overflowing.
	const saturated = 1 << 50
	type frame struct {
		node *yaml.Node
		next int // index of the next child to visit
		size int // the node plus the expanded size of the children visited so far
	}
	// An alias can only name an anchor defined before it, so a walk in
	// document order has finished an anchored node before any alias to it,
	// unless the alias sits inside that node.
	expandedSize := map[*yaml.Node]int{}
	nodes := 1
	stack := []frame{{node: root, size: 1}}
	for {
		top := &stack[len(stack)-1]
		if top.next < len(top.node.Content) {
			child := top.node.Content[top.next]
			top.next++
			nodes++
			if child.Kind != yaml.AliasNode || child.Alias == nil {
				stack = append(stack, frame{node: child, size: 1})
				continue
			}
			size, done := expandedSize[child.Alias]
			if !done {
				return errorf(y.docLine(child.Line), "pact:pack block is not valid YAML: alias *%s refers to a node that contains it", child.Value)
			}
			top.size = min(top.size+size, saturated)
			continue
		}
		finished := *top
		stack = stack[:len(stack)-1]
		if finished.node.Anchor != "" {
			expandedSize[finished.node] = finished.size
		}
		if len(stack) == 0 {
			if finished.size-nodes > maxAliasExpansion {
				return errorf(y.block.line, "pact:pack block's YAML aliases expand to more than %d extra nodes", maxAliasExpansion)
			}
			return nil
		}
		parent := &stack[len(stack)-1]
		parent.size = min(parent.size+finished.size, saturated)
	}
}

// fields reads every value the derivation rules may use. Types are checked
// whether or not the request overrides a value, so a document is valid or
// not on its own.
func (y *blockYAML) fields(root *yaml.Node) (packFields, error) {
	var f packFields
	var err error
	text := func(m *yaml.Node, key, path string) field {
		if err != nil {
			return field{}
		}
		var n *yaml.Node
		if n, err = y.lookup(m, key, path); err != nil || n == nil {
			return field{}
		}
		var v field
		v, err = y.scalar(n, path)
		return v
	}

	f.name = text(root, "name", "name")
	f.version = text(root, "version", "version")
	f.scheme = text(root, "scheme", "scheme")
	f.description = text(root, "description", "description")
	if err != nil {
		return f, err
	}

	schemes, err := y.lookup(root, "schemes", "schemes")
	if err != nil {
		return f, err
	}
	if schemes != nil {
		if f.firstScheme, err = y.firstEntry(schemes, "schemes"); err != nil {
			return f, err
		}
	}

	metadata, err := y.lookup(root, "metadata", "metadata")
	if err != nil || metadata == nil {
		return f, err
	}
	switch m := resolve(metadata); {
	case m.Kind == yaml.MappingNode:
		f.metaName = text(m, "name", "metadata.name")
		f.metaID = text(m, "id", "metadata.id")
		f.metaVersion = text(m, "version", "metadata.version")
	case isNull(m):
	default:
		err = errorf(y.docLine(metadata.Line), "`metadata` must be a YAML mapping, not %s", kindName(m))
	}
	return f, err
}

// lookup finds key in mapping m: its own keys first, then those of merged
// mappings (<<), as YAML's merge rule says. A key given twice is an error
// rather than a silent pick. Returns nil when the key is absent.
func (y *blockYAML) lookup(m *yaml.Node, key, path string) (*yaml.Node, error) {
	var value, merges []*yaml.Node
	var keyLines []int
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := resolve(m.Content[i])
		switch {
		case k.Kind != yaml.ScalarNode:
		case k.ShortTag() == "!!merge":
			merges = append(merges, m.Content[i+1])
		case k.Value == key:
			value = append(value, m.Content[i+1])
			keyLines = append(keyLines, y.docLine(m.Content[i].Line))
		}
	}
	if len(value) > 1 {
		return nil, errorf(keyLines[1], "key `%s` appears more than once (%s)", path, describeLines(keyLines))
	}
	if len(value) == 1 {
		return value[0], nil
	}
	for _, merge := range merges {
		merged := resolve(merge)
		sources := []*yaml.Node{merged}
		if merged.Kind == yaml.SequenceNode {
			sources = merged.Content
		}
		for _, source := range sources {
			source = resolve(source)
			if source.Kind != yaml.MappingNode {
				return nil, errorf(y.docLine(merge.Line), "pact:pack block is not valid YAML: a merge key (<<) needs a mapping or a list of mappings")
			}
			found, err := y.lookup(source, key, path)
			if found != nil || err != nil {
				return found, err
			}
		}
	}
	return nil, nil
}

// scalar reads a value that must be text. Null counts as absent.
func (y *blockYAML) scalar(n *yaml.Node, path string) (field, error) {
	v := resolve(n)
	if isNull(v) {
		return field{}, nil
	}
	if v.Kind != yaml.ScalarNode {
		return field{}, errorf(y.docLine(n.Line), "`%s` must be text, not %s", path, kindName(v))
	}
	return field{value: strings.TrimSpace(v.Value), line: y.docLine(n.Line)}, nil
}

// firstEntry reads the first entry of a list of text values.
func (y *blockYAML) firstEntry(n *yaml.Node, path string) (field, error) {
	v := resolve(n)
	switch {
	case isNull(v):
		return field{}, nil
	case v.Kind != yaml.SequenceNode:
		return field{}, errorf(y.docLine(n.Line), "`%s` must be a YAML list, not %s", path, kindName(v))
	case len(v.Content) == 0:
		return field{}, nil
	}
	return y.scalar(v.Content[0], path+"[0]")
}

// resolve follows an alias to its anchored node. Anchors cannot be put on
// aliases, so one step is enough.
func resolve(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "text"
	case yaml.AliasNode:
		return "an alias"
	default:
		return "a YAML document"
	}
}
