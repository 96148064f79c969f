package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/openapi"
	"github.com/pact-registry/pact/server/render"
)

// The /docs page is made from openapi.json alone, so the reference can never
// drift from the contract the tests check responses against. The types
// below decode the parts of OpenAPI 3.0 that page shows, keeping the
// document's order of paths, properties and responses.

type oaDoc struct {
	Info struct {
		Title       string `json:"title"`
		Version     string `json:"version"`
		Description string `json:"description"`
	} `json:"info"`
	Tags       []struct{ Name, Description string } `json:"tags"`
	Paths      ordered[oaPathItem]                  `json:"paths"`
	Components struct {
		Schemas         ordered[*oaSchema]         `json:"schemas"`
		Parameters      map[string]*oaParameter    `json:"parameters"`
		Headers         map[string]*oaParameter    `json:"headers"`
		SecuritySchemes ordered[*oaSecurityScheme] `json:"securitySchemes"`
	} `json:"components"`
}

type oaPathItem struct {
	Parameters []*oaParameter `json:"parameters"`
	Get        *oaOperation   `json:"get"`
	Head       *oaOperation   `json:"head"`
	Post       *oaOperation   `json:"post"`
	Put        *oaOperation   `json:"put"`
	Patch      *oaOperation   `json:"patch"`
	Delete     *oaOperation   `json:"delete"`
}

type oaOperation struct {
	OperationID string                 `json:"operationId"`
	Summary     string                 `json:"summary"`
	Description string                 `json:"description"`
	Tags        []string               `json:"tags"`
	Parameters  []*oaParameter         `json:"parameters"`
	RequestBody *oaRequestBody         `json:"requestBody"`
	Responses   ordered[*oaResponse]   `json:"responses"`
	Security    *[]map[string][]string `json:"security"`
	Curl        string                 `json:"x-curl"`
}

type oaParameter struct {
	Ref         string    `json:"$ref"`
	Name        string    `json:"name"`
	In          string    `json:"in"`
	Description string    `json:"description"`
	Required    bool      `json:"required"`
	Schema      *oaSchema `json:"schema"`
}

type oaRequestBody struct {
	Description string            `json:"description"`
	Required    bool              `json:"required"`
	Content     ordered[*oaMedia] `json:"content"`
}

type oaResponse struct {
	Description string                `json:"description"`
	Headers     ordered[*oaParameter] `json:"headers"`
	Content     ordered[*oaMedia]     `json:"content"`
}

type oaMedia struct {
	Schema *oaSchema `json:"schema"`
}

type oaSchema struct {
	Ref         string             `json:"$ref"`
	Type        string             `json:"type"`
	Format      string             `json:"format"`
	Description string             `json:"description"`
	Properties  ordered[*oaSchema] `json:"properties"`
	Required    []string           `json:"required"`
	Items       *oaSchema          `json:"items"`
	Nullable    bool               `json:"nullable"`
	Enum        []any              `json:"enum"`
	Default     any                `json:"default"`
	Example     any                `json:"example"`
	Minimum     *float64           `json:"minimum"`
	Maximum     *float64           `json:"maximum"`
	MinLength   *int               `json:"minLength"`
	MaxLength   *int               `json:"maxLength"`
	Pattern     string             `json:"pattern"`
	OneOf       []*oaSchema        `json:"oneOf"`
	AllOf       []*oaSchema        `json:"allOf"`
}

type oaSecurityScheme struct {
	Type        string `json:"type"`
	Scheme      string `json:"scheme"`
	In          string `json:"in"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// ordered is a JSON object decoded with its keys in document order.
type ordered[T any] struct {
	Keys   []string
	Values map[string]T
}

func (o *ordered[T]) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("want a JSON object, got %v", tok)
	}
	o.Values = make(map[string]T)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string)
		var v T
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		o.Keys = append(o.Keys, key)
		o.Values[key] = v
	}
	_, err = dec.Token()
	return err
}

// The view of the reference, ready for docs.html.

type docsView struct {
	Title    string
	Version  string
	Intro    template.HTML
	Groups   []docsGroup
	Schemas  []docsSchema
	Security []docsSecurity
}

type docsGroup struct {
	Name        string
	Anchor      string
	Description template.HTML
	Operations  []docsOperation
}

type docsOperation struct {
	Anchor      string
	Method      string
	Path        string
	Summary     string
	Description template.HTML
	Auth        []string // "" entries never; empty means public
	Parameters  []docsField
	Body        *docsBody
	Responses   []docsResponse
	Curl        string
	// Head is the HEAD operation of the same path, shown with its GET
	// rather than as an operation of its own; nil when there is none.
	Head *docsHead
}

// docsHead is what a HEAD operation adds to its GET: its anchor (links to
// it keep working), what it says and its example.
type docsHead struct {
	Anchor      string
	Description template.HTML
	Curl        string
}

type docsBody struct {
	Description template.HTML
	Required    bool
	Media       []docsMedia
}

type docsMedia struct {
	Type   string
	Schema docsType
}

type docsResponse struct {
	Status      string
	Description template.HTML
	Media       []docsMedia
	Headers     []docsField
}

type docsType struct {
	Before string // e.g. "array of "
	Name   string
	Link   string // "#schema-Name" when the type is a named schema
	After  string // e.g. ", or null"
}

func (t docsType) String() string { return t.Before + t.Name + t.After }

type docsField struct {
	Name        string
	In          string
	Type        docsType
	Required    bool
	Description template.HTML
	Rules       string
}

type docsSchema struct {
	Name        string
	Anchor      string
	Description template.HTML
	Type        docsType
	Fields      []docsField
}

type docsSecurity struct {
	Name        string
	How         string
	Description template.HTML
}

var (
	docsOnce sync.Once
	docsPage *docsView
	docsErr  error
)

// apiReference serves /docs.
func (pages *Pages) apiReference(c *gin.Context) {
	docsOnce.Do(func() { docsPage, docsErr = buildDocs(openapi.JSON) })
	if docsErr != nil {
		pages.shared.Log.Error("building the API reference", "error", docsErr.Error())
		c.Data(http.StatusInternalServerError, "text/plain; charset=utf-8", []byte("internal error\n"))
		return
	}
	pages.render(c, http.StatusOK, "docs.html", "", docsWithKey{docsPage, pages.svc.LogVerifierKey(), pages.svc.LogOrigin(),
		string(pages.svc.WitnessPolicy())})
}

// docsWithKey is the shared reference plus this server's transparency log
// key, which clients pin (docs/protocol.md, Transparency log), its origin,
// which witnesses add it by, and its witness policy ("" without one).
type docsWithKey struct {
	*docsView
	LogKey        string
	LogOrigin     string
	WitnessPolicy string
}

func buildDocs(raw []byte) (*docsView, error) {
	var doc oaDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("decoding openapi.json: %w", err)
	}
	view := &docsView{Title: doc.Info.Title, Version: doc.Info.Version, Intro: markdownText(doc.Info.Description)}
	groups := map[string]*docsGroup{}
	var order []string
	for _, t := range doc.Tags {
		groups[t.Name] = &docsGroup{Name: t.Name, Anchor: "tag-" + slug(t.Name), Description: markdownText(t.Description)}
		order = append(order, t.Name)
	}
	for _, p := range doc.Paths.Keys {
		item := doc.Paths.Values[p]
		for _, m := range []struct {
			method string
			op     *oaOperation
		}{{"GET", item.Get}, {"HEAD", item.Head}, {"POST", item.Post}, {"PUT", item.Put}, {"PATCH", item.Patch}, {"DELETE", item.Delete}} {
			if m.op == nil || m.method == "HEAD" && item.Get != nil {
				continue // a HEAD goes with its GET
			}
			op := buildOperation(&doc, m.method, p, &item, m.op)
			if m.method == "GET" && item.Head != nil {
				op.Head = &docsHead{Anchor: operationAnchor("HEAD", p, item.Head),
					Description: markdownText(item.Head.Description), Curl: item.Head.Curl}
			}
			tag := "other"
			if len(m.op.Tags) > 0 {
				tag = m.op.Tags[0]
			}
			g, ok := groups[tag]
			if !ok {
				g = &docsGroup{Name: tag, Anchor: "tag-" + slug(tag)}
				groups[tag] = g
				order = append(order, tag)
			}
			g.Operations = append(g.Operations, op)
		}
	}
	for _, name := range order {
		if g := groups[name]; len(g.Operations) > 0 {
			view.Groups = append(view.Groups, *g)
		}
	}
	for _, name := range doc.Components.Schemas.Keys {
		s := doc.Components.Schemas.Values[name]
		ds := docsSchema{Name: name, Anchor: "schema-" + name, Description: markdownText(s.Description), Type: typeOf(s)}
		ds.Fields = fieldsOf(s)
		view.Schemas = append(view.Schemas, ds)
	}
	for _, name := range doc.Components.SecuritySchemes.Keys {
		ss := doc.Components.SecuritySchemes.Values[name]
		view.Security = append(view.Security, docsSecurity{Name: name, How: securityHow(ss), Description: markdownText(ss.Description)})
	}
	return view, nil
}

func buildOperation(doc *oaDoc, method, path string, item *oaPathItem, op *oaOperation) docsOperation {
	out := docsOperation{
		Anchor: operationAnchor(method, path, op), Method: method, Path: path, Summary: op.Summary,
		Description: markdownText(op.Description), Curl: op.Curl,
	}
	// Path-level parameters apply unless the operation redefines them.
	seen := map[string]bool{}
	var params []*oaParameter
	for _, p := range op.Parameters {
		p = resolveParameter(doc.Components.Parameters, p)
		seen[p.In+" "+p.Name] = true
		params = append(params, p)
	}
	for _, p := range item.Parameters {
		p = resolveParameter(doc.Components.Parameters, p)
		if !seen[p.In+" "+p.Name] {
			params = append([]*oaParameter{p}, params...)
		}
	}
	for _, p := range params {
		out.Parameters = append(out.Parameters, docsField{
			Name: p.Name, In: p.In, Type: typeOf(p.Schema), Required: p.Required,
			Description: markdownText(p.Description), Rules: rulesOf(p.Schema),
		})
	}
	if b := op.RequestBody; b != nil {
		body := &docsBody{Description: markdownText(b.Description), Required: b.Required}
		for _, ct := range b.Content.Keys {
			body.Media = append(body.Media, docsMedia{Type: ct, Schema: typeOf(b.Content.Values[ct].Schema)})
		}
		out.Body = body
	}
	for _, status := range op.Responses.Keys {
		r := op.Responses.Values[status]
		dr := docsResponse{Status: status, Description: markdownText(r.Description)}
		for _, ct := range r.Content.Keys {
			dr.Media = append(dr.Media, docsMedia{Type: ct, Schema: typeOf(r.Content.Values[ct].Schema)})
		}
		for _, name := range r.Headers.Keys {
			h := resolveParameter(doc.Components.Headers, r.Headers.Values[name])
			dr.Headers = append(dr.Headers, docsField{Name: name, Type: typeOf(h.Schema), Description: markdownText(h.Description)})
		}
		out.Responses = append(out.Responses, dr)
	}
	if op.Security != nil {
		for _, req := range *op.Security {
			names := make([]string, 0, len(req))
			for name := range req {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				if ss, ok := doc.Components.SecuritySchemes.Values[name]; ok {
					out.Auth = append(out.Auth, securityHow(ss))
				}
			}
		}
	}
	return out
}

// operationAnchor is the fragment that links to an operation.
func operationAnchor(method, path string, op *oaOperation) string {
	if op.OperationID == "" {
		return "op-" + slug(method+" "+path)
	}
	return "op-" + op.OperationID
}

func resolveParameter(defs map[string]*oaParameter, p *oaParameter) *oaParameter {
	if p == nil {
		return &oaParameter{}
	}
	if p.Ref != "" {
		name := p.Ref[strings.LastIndex(p.Ref, "/")+1:]
		if def, ok := defs[name]; ok {
			return def
		}
	}
	return p
}

func securityHow(ss *oaSecurityScheme) string {
	switch {
	case ss.Type == "http" && strings.EqualFold(ss.Scheme, "bearer"):
		return "Authorization: Bearer <token>"
	case ss.Type == "apiKey":
		return ss.Name + ": <token> (" + ss.In + ")"
	default:
		return ss.Type
	}
}

// typeOf describes a schema in a few words, linking named schemas.
func typeOf(s *oaSchema) docsType {
	if s == nil {
		return docsType{Name: "any"}
	}
	var t docsType
	switch {
	case s.Ref != "":
		name := s.Ref[strings.LastIndex(s.Ref, "/")+1:]
		t = docsType{Name: name, Link: "#schema-" + name}
	case s.Type == "array":
		t = typeOf(s.Items)
		t.Before = "array of " + t.Before
	case len(s.OneOf) > 0:
		parts := make([]string, len(s.OneOf))
		for i, o := range s.OneOf {
			parts[i] = typeOf(o).String()
		}
		t = docsType{Name: "one of " + strings.Join(parts, ", ")}
	case len(s.AllOf) == 1:
		t = typeOf(s.AllOf[0])
	case s.Type == "":
		t = docsType{Name: "any"}
	default:
		t = docsType{Name: s.Type}
		if s.Format != "" {
			t.Name += " (" + s.Format + ")"
		}
	}
	if s.Nullable {
		t.After += ", or null"
	}
	return t
}

// rulesOf lists a schema's constraints: enum, bounds, pattern, default.
func rulesOf(s *oaSchema) string {
	if s == nil {
		return ""
	}
	var rules []string
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			vals[i] = jsonText(v)
		}
		rules = append(rules, "one of "+strings.Join(vals, ", "))
	}
	if s.Minimum != nil {
		rules = append(rules, "minimum "+strconv.FormatFloat(*s.Minimum, 'f', -1, 64))
	}
	if s.Maximum != nil {
		rules = append(rules, "maximum "+strconv.FormatFloat(*s.Maximum, 'f', -1, 64))
	}
	if s.MinLength != nil && *s.MinLength > 0 {
		rules = append(rules, "at least "+strconv.Itoa(*s.MinLength)+" characters")
	}
	if s.MaxLength != nil {
		rules = append(rules, "at most "+strconv.Itoa(*s.MaxLength)+" characters")
	}
	if s.Pattern != "" {
		rules = append(rules, "pattern "+s.Pattern)
	}
	if s.Default != nil {
		rules = append(rules, "default "+jsonText(s.Default))
	}
	if s.Example != nil {
		rules = append(rules, "example "+jsonText(s.Example))
	}
	return strings.Join(rules, "; ")
}

func fieldsOf(s *oaSchema) []docsField {
	if s == nil {
		return nil
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	var fields []docsField
	for _, name := range s.Properties.Keys {
		p := s.Properties.Values[name]
		fields = append(fields, docsField{
			Name: name, Type: typeOf(p), Required: required[name],
			Description: markdownText(p.Description), Rules: rulesOf(p),
		})
	}
	return fields
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// markdownText renders a description of openapi.json. The document is
// ours, but it goes through the same sanitiser as everything else.
func markdownText(s string) template.HTML {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return render.Markdown([]byte(s))
}

func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}
