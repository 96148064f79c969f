package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/pact-registry/pact/server/openapi"
)

// kin-openapi with every optional check turned on: formats, patterns,
// defaults and examples against their schemas, no extensions beside $ref.
func TestKinOpenAPIStrictValidation(t *testing.T) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(openapi.JSON)
	if err != nil {
		t.Fatal(err)
	}
	ctx := openapi3.WithValidationOptions(context.Background(),
		openapi3.EnableSchemaFormatValidation(),
		openapi3.EnableSchemaPatternValidation(),
		openapi3.EnableSchemaDefaultsValidation(),
		openapi3.EnableExamplesValidation(),
		openapi3.ProhibitExtensionsWithRef(),
		openapi3.EnableMultiError(),
	)
	if err := doc.Validate(ctx); err != nil {
		t.Fatal(err)
	}
}

// A second validator, independent of kin-openapi (which accepts, for
// instance, an empty `required` list, which OpenAPI 3.0 forbids): it walks
// the raw JSON and applies the rules of the OpenAPI 3.0.3 specification to
// every object. It refuses any field the specification does not define for
// an object (extensions `x-…` aside), so a feature it does not know yet
// fails the test rather than going unchecked.
func TestDocumentIsStrictOpenAPI303(t *testing.T) {
	for _, problem := range checkOpenAPI303(t, openapi.JSON) {
		t.Error(problem)
	}
}

// The strict checker finds each kind of defect it exists for, so that its
// silence above means something.
func TestStrictCheckerFindsDefects(t *testing.T) {
	mutations := []struct {
		name   string
		mutate func(doc map[string]any)
		want   string
	}{
		{"empty required list", func(doc map[string]any) {
			schema(doc, "Error")["required"] = []any{}
		}, "required must be a non-empty list"},
		{"repeated required name", func(doc map[string]any) {
			schema(doc, "Error")["required"] = []any{"error", "error"}
		}, "required names error twice"},
		{"empty enum", func(doc map[string]any) {
			schema(doc, "Error")["enum"] = []any{}
		}, "enum must be a non-empty list"},
		{"a field OpenAPI 3.0 does not have", func(doc map[string]any) {
			schema(doc, "Error")["const"] = "x"
		}, `unknown field "const"`},
		{"type as a list (3.1 only)", func(doc map[string]any) {
			schema(doc, "Error")["type"] = []any{"object", "null"}
		}, "type must be one of"},
		{"dangling $ref", func(doc map[string]any) {
			schema(doc, "PackageList")["properties"].(map[string]any)["packages"] = map[string]any{"$ref": "#/components/schemas/NoSuchThing"}
		}, "does not resolve"},
		{"$ref to the wrong kind of component", func(doc map[string]any) {
			schema(doc, "PackageList")["properties"].(map[string]any)["packages"] = map[string]any{"$ref": "#/components/parameters/Owner"}
		}, "must point into #/components/schemas/"},
		{"two operations with one operationId", func(doc map[string]any) {
			op(doc, "/api/me", "get")["operationId"] = op(doc, "/healthz", "get")["operationId"]
		}, "used by both"},
		{"path parameter not declared", func(doc map[string]any) {
			paths := doc["paths"].(map[string]any)
			paths["/api/ssh-keys/{id}/{extra}"] = paths["/api/ssh-keys/{id}"]
		}, "{extra} is not declared"},
		{"declared path parameter not in the path", func(doc map[string]any) {
			paths := doc["paths"].(map[string]any)
			paths["/api/ssh-keys/{key}"] = paths["/api/ssh-keys/{id}"]
			delete(paths, "/api/ssh-keys/{id}")
		}, `path parameter "id" is not in the path`},
		{"bad status code", func(doc map[string]any) {
			responses := op(doc, "/healthz", "get")["responses"].(map[string]any)
			responses["2000"] = responses["200"]
		}, `response code "2000"`},
		{"response without description", func(doc map[string]any) {
			responses := op(doc, "/healthz", "get")["responses"].(map[string]any)
			delete(responses["200"].(map[string]any), "description")
		}, `missing required field "description"`},
		{"unknown security scheme", func(doc map[string]any) {
			op(doc, "/api/me", "get")["security"] = []any{map[string]any{"cookieAuth": []any{}}}
		}, `security scheme "cookieAuth" is not defined`},
		{"wrong openapi version", func(doc map[string]any) {
			doc["openapi"] = "3.1.0"
		}, "openapi must be 3.0.x"},
	}
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(openapi.JSON, &doc); err != nil {
				t.Fatal(err)
			}
			m.mutate(doc)
			data, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			problems := checkOpenAPI303(t, data)
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, m.want) }) {
				t.Errorf("the checker did not report %q; it reported %q", m.want, problems)
			}
		})
	}
}

func schema(doc map[string]any, name string) map[string]any {
	return doc["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any)
}

func op(doc map[string]any, path, method string) map[string]any {
	return doc["paths"].(map[string]any)[path].(map[string]any)[method].(map[string]any)
}

// oas is one run of the strict checker over a document.
type oas struct {
	root         map[string]any
	problems     []string
	operationIDs map[string]string // operationId → where it was first seen
}

func checkOpenAPI303(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	c := &oas{root: root, operationIDs: map[string]string{}}
	c.document(root)
	return c.problems
}

func (c *oas) fail(at, format string, args ...any) {
	c.problems = append(c.problems, at+": "+fmt.Sprintf(format, args...))
}

// fields checks an object's field names against the fixed fields of its
// kind: required ones present, no others but extensions.
func (c *oas) fields(at string, v any, required []string, optional ...string) (map[string]any, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		c.fail(at, "must be an object")
		return nil, false
	}
	for _, name := range required {
		if _, ok := obj[name]; !ok {
			c.fail(at, "missing required field %q", name)
		}
	}
	for name := range obj {
		if !slices.Contains(required, name) && !slices.Contains(optional, name) && !strings.HasPrefix(name, "x-") {
			c.fail(at, "unknown field %q", name)
		}
	}
	return obj, true
}

func (c *oas) str(at string, obj map[string]any, name string) (string, bool) {
	v, present := obj[name]
	if !present {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		c.fail(at+"/"+name, "must be a string")
	}
	return s, ok
}

func (c *oas) boolean(at string, obj map[string]any, name string) {
	if v, present := obj[name]; present {
		if _, ok := v.(bool); !ok {
			c.fail(at+"/"+name, "must be true or false")
		}
	}
}

func (c *oas) object(at string, obj map[string]any, name string) map[string]any {
	v, present := obj[name]
	if !present {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		c.fail(at+"/"+name, "must be an object")
	}
	return m
}

func (c *oas) list(at string, obj map[string]any, name string) []any {
	v, present := obj[name]
	if !present {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		c.fail(at+"/"+name, "must be a list")
	}
	return l
}

// ref resolves a Reference Object, which must point into section (for
// example "#/components/schemas/"), and reports whether v was one.
func (c *oas) ref(at string, v any, section string) (map[string]any, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	raw, isRef := obj["$ref"]
	if !isRef {
		return nil, false
	}
	if len(obj) != 1 {
		c.fail(at, "a $ref must stand alone (OpenAPI 3.0 ignores its siblings)")
	}
	target, _ := raw.(string)
	if !strings.HasPrefix(target, section) {
		c.fail(at, "$ref %q must point into %s", target, section)
		return nil, true
	}
	var cur any = c.root
	for _, part := range strings.Split(strings.TrimPrefix(target, "#/"), "/") {
		part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
		m, ok := cur.(map[string]any)
		if !ok {
			cur = nil
			break
		}
		cur = m[part]
	}
	resolved, ok := cur.(map[string]any)
	if !ok {
		c.fail(at, "$ref %q does not resolve", target)
		return nil, true
	}
	return resolved, true
}

var (
	componentName = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)
	responseCode  = regexp.MustCompile(`^([1-5][0-9][0-9]|[1-5]XX|default)$`)
	pathParam     = regexp.MustCompile(`\{([^{}]+)\}`)
	version30     = regexp.MustCompile(`^3\.0\.\d+$`)
)

func (c *oas) document(doc map[string]any) {
	c.fields("#", doc, []string{"openapi", "info", "paths"}, "servers", "components", "security", "tags", "externalDocs")
	if v, _ := c.str("#", doc, "openapi"); !version30.MatchString(v) {
		c.fail("#/openapi", "openapi must be 3.0.x, got %q", v)
	}
	if info, ok := c.fields("#/info", doc["info"], []string{"title", "version"}, "description", "termsOfService", "contact", "license"); ok {
		for _, f := range []string{"title", "version", "description", "termsOfService"} {
			c.str("#/info", info, f)
		}
		if contact := c.object("#/info", info, "contact"); contact != nil {
			c.fields("#/info/contact", contact, nil, "name", "url", "email")
		}
		if license := c.object("#/info", info, "license"); license != nil {
			c.fields("#/info/license", license, []string{"name"}, "url")
		}
	}
	for i, s := range c.list("#", doc, "servers") {
		c.server(fmt.Sprintf("#/servers/%d", i), s)
	}
	schemes := map[string]any{}
	if comps := c.object("#", doc, "components"); comps != nil {
		c.fields("#/components", comps, nil, "schemas", "responses", "parameters", "examples", "requestBodies", "headers", "securitySchemes", "links", "callbacks")
		for section, check := range map[string]func(string, any){
			"schemas":         c.schema,
			"responses":       c.response,
			"parameters":      c.parameter,
			"examples":        c.example,
			"requestBodies":   c.requestBody,
			"headers":         c.header,
			"securitySchemes": c.securityScheme,
		} {
			for name, v := range c.object("#/components", comps, section) {
				at := "#/components/" + section + "/" + name
				if !componentName.MatchString(name) {
					c.fail(at, "component names must match %s", componentName)
				}
				check(at, v)
			}
		}
		if len(c.object("#/components", comps, "links"))+len(c.object("#/components", comps, "callbacks")) > 0 {
			c.fail("#/components", "links and callbacks are not checked by this test; extend it before using them")
		}
		schemes = c.object("#/components", comps, "securitySchemes")
	}
	c.security("#/security", doc["security"], schemes)
	tags := map[string]bool{}
	for i, v := range c.list("#", doc, "tags") {
		at := fmt.Sprintf("#/tags/%d", i)
		if tag, ok := c.fields(at, v, []string{"name"}, "description", "externalDocs"); ok {
			name, _ := c.str(at, tag, "name")
			if tags[name] {
				c.fail(at, "tag %q is listed twice", name)
			}
			tags[name] = true
		}
	}
	paths, ok := doc["paths"].(map[string]any)
	if !ok {
		c.fail("#/paths", "must be an object")
		return
	}
	for path, item := range paths {
		if strings.HasPrefix(path, "x-") {
			continue
		}
		c.pathItem(path, item, schemes)
	}
}

func (c *oas) server(at string, v any) {
	if s, ok := c.fields(at, v, []string{"url"}, "description", "variables"); ok {
		c.str(at, s, "url")
		for name, variable := range c.object(at, s, "variables") {
			if vv, ok := c.fields(at+"/variables/"+name, variable, []string{"default"}, "enum", "description"); ok {
				if enum := c.list(at, vv, "enum"); vv["enum"] != nil && len(enum) == 0 {
					c.fail(at+"/variables/"+name, "enum must be a non-empty list")
				}
			}
		}
	}
}

func (c *oas) pathItem(path string, v any, schemes map[string]any) {
	at := "#/paths/" + strings.ReplaceAll(path, "/", "~1")
	if !strings.HasPrefix(path, "/") {
		c.fail(at, "paths must start with /")
	}
	methods := []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}
	item, ok := c.fields(at, v, nil, append([]string{"$ref", "summary", "description", "servers", "parameters"}, methods...)...)
	if !ok {
		return
	}
	if _, isRef := item["$ref"]; isRef {
		c.fail(at, "path item $refs are not checked by this test")
	}
	shared := c.parameters(at+"/parameters", item)
	inPath := map[string]bool{}
	for _, m := range pathParam.FindAllStringSubmatch(path, -1) {
		if inPath[m[1]] {
			c.fail(at, "{%s} appears twice in the path", m[1])
		}
		inPath[m[1]] = true
	}
	for _, method := range methods {
		raw, present := item[method]
		if !present {
			continue
		}
		opAt := at + "/" + method
		op, ok := c.fields(opAt, raw, []string{"responses"}, "tags", "summary", "description", "externalDocs", "operationId", "parameters", "requestBody", "callbacks", "deprecated", "security", "servers")
		if !ok {
			continue
		}
		for _, f := range []string{"summary", "description"} {
			c.str(opAt, op, f)
		}
		c.boolean(opAt, op, "deprecated")
		if id, ok := c.str(opAt, op, "operationId"); ok {
			if first, seen := c.operationIDs[id]; seen {
				c.fail(opAt, "operationId %q is used by both %s and this operation", id, first)
			} else {
				c.operationIDs[id] = opAt
			}
		}
		if op["callbacks"] != nil {
			c.fail(opAt, "callbacks are not checked by this test; extend it before using them")
		}
		params := c.parameters(opAt+"/parameters", op)
		// An operation's parameter overrides the path item's of the same
		// name and location.
		all := map[string]map[string]any{}
		for k, p := range shared {
			all[k] = p
		}
		for k, p := range params {
			all[k] = p
		}
		declared := map[string]bool{}
		for _, p := range all {
			if p["in"] == "path" {
				name, _ := p["name"].(string)
				declared[name] = true
				if !inPath[name] {
					c.fail(opAt, "path parameter %q is not in the path", name)
				}
			}
		}
		for name := range inPath {
			if !declared[name] {
				c.fail(opAt, "{%s} is not declared as a path parameter", name)
			}
		}
		if rb, present := op["requestBody"]; present {
			c.requestBody(opAt+"/requestBody", rb)
		}
		responses, ok := op["responses"].(map[string]any)
		if !ok {
			c.fail(opAt+"/responses", "must be an object")
		} else {
			if len(responses) == 0 {
				c.fail(opAt+"/responses", "must hold at least one response")
			}
			for code, r := range responses {
				if strings.HasPrefix(code, "x-") {
					continue
				}
				if !responseCode.MatchString(code) {
					c.fail(opAt+"/responses", "response code %q must be an HTTP status, nXX or default", code)
				}
				c.response(opAt+"/responses/"+code, r)
			}
		}
		c.security(opAt+"/security", op["security"], schemes)
		for i, s := range c.list(opAt, op, "servers") {
			c.server(fmt.Sprintf("%s/servers/%d", opAt, i), s)
		}
	}
}

// parameters checks a list of parameters and returns them by "in name",
// resolved.
func (c *oas) parameters(at string, owner map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	list, present := owner["parameters"]
	if !present {
		return out
	}
	items, ok := list.([]any)
	if !ok {
		c.fail(at, "must be a list")
		return out
	}
	for i, v := range items {
		pAt := fmt.Sprintf("%s/%d", at, i)
		p, isRef := c.ref(pAt, v, "#/components/parameters/")
		if !isRef {
			c.parameter(pAt, v)
			p, _ = v.(map[string]any)
		}
		if p == nil {
			continue
		}
		key := fmt.Sprint(p["in"], " ", p["name"])
		if _, dup := out[key]; dup {
			c.fail(pAt, "parameter %s is listed twice", key)
		}
		out[key] = p
	}
	return out
}

func (c *oas) parameter(at string, v any) {
	if _, isRef := c.ref(at, v, "#/components/parameters/"); isRef {
		return
	}
	p, ok := c.fields(at, v, []string{"name", "in"}, "description", "required", "deprecated", "allowEmptyValue",
		"style", "explode", "allowReserved", "schema", "example", "examples", "content")
	if !ok {
		return
	}
	name, _ := c.str(at, p, "name")
	in, _ := c.str(at, p, "in")
	if !slices.Contains([]string{"query", "header", "path", "cookie"}, in) {
		c.fail(at, "in must be query, header, path or cookie, got %q", in)
	}
	if in == "path" && p["required"] != true {
		c.fail(at, "a path parameter must have required: true")
	}
	if in == "header" && slices.Contains([]string{"accept", "content-type", "authorization"}, strings.ToLower(name)) {
		c.fail(at, "a header parameter named %s is ignored by OpenAPI", name)
	}
	if p["allowEmptyValue"] != nil && in != "query" {
		c.fail(at, "allowEmptyValue is for query parameters only")
	}
	for _, f := range []string{"required", "deprecated", "allowEmptyValue", "explode", "allowReserved"} {
		c.boolean(at, p, f)
	}
	if style, ok := c.str(at, p, "style"); ok {
		allowed := map[string][]string{
			"path":   {"matrix", "label", "simple"},
			"query":  {"form", "spaceDelimited", "pipeDelimited", "deepObject"},
			"header": {"simple"},
			"cookie": {"form"},
		}[in]
		if !slices.Contains(allowed, style) {
			c.fail(at, "style %q is not allowed in %s", style, in)
		}
	}
	c.schemaOrContent(at, p)
}

func (c *oas) header(at string, v any) {
	if _, isRef := c.ref(at, v, "#/components/headers/"); isRef {
		return
	}
	h, ok := c.fields(at, v, nil, "description", "required", "deprecated", "allowEmptyValue",
		"style", "explode", "allowReserved", "schema", "example", "examples", "content")
	if !ok {
		return
	}
	for _, f := range []string{"required", "deprecated", "explode", "allowReserved"} {
		c.boolean(at, h, f)
	}
	if style, ok := c.str(at, h, "style"); ok && style != "simple" {
		c.fail(at, "a header's style must be simple")
	}
	c.schemaOrContent(at, h)
}

// schemaOrContent: a parameter or header has exactly one of schema and
// content (with one media type), and not both example and examples.
func (c *oas) schemaOrContent(at string, p map[string]any) {
	_, hasSchema := p["schema"]
	_, hasContent := p["content"]
	if hasSchema == hasContent {
		c.fail(at, "must have exactly one of schema and content")
	}
	if hasSchema {
		c.schema(at+"/schema", p["schema"])
	}
	if hasContent {
		content := c.object(at, p, "content")
		if len(content) != 1 {
			c.fail(at+"/content", "must hold exactly one media type")
		}
		for mt, m := range content {
			c.mediaType(at+"/content/"+mt, m)
		}
	}
	c.exampleXORExamples(at, p)
}

func (c *oas) exampleXORExamples(at string, obj map[string]any) {
	_, one := obj["example"]
	_, many := obj["examples"]
	if one && many {
		c.fail(at, "example and examples exclude each other")
	}
	for name, e := range c.object(at, obj, "examples") {
		c.example(at+"/examples/"+name, e)
	}
}

func (c *oas) example(at string, v any) {
	if _, isRef := c.ref(at, v, "#/components/examples/"); isRef {
		return
	}
	if e, ok := c.fields(at, v, nil, "summary", "description", "value", "externalValue"); ok {
		if e["value"] != nil && e["externalValue"] != nil {
			c.fail(at, "value and externalValue exclude each other")
		}
	}
}

func (c *oas) requestBody(at string, v any) {
	if _, isRef := c.ref(at, v, "#/components/requestBodies/"); isRef {
		return
	}
	rb, ok := c.fields(at, v, []string{"content"}, "description", "required")
	if !ok {
		return
	}
	c.boolean(at, rb, "required")
	c.content(at, rb)
}

func (c *oas) content(at string, owner map[string]any) {
	for mt, m := range c.object(at, owner, "content") {
		if !strings.Contains(mt, "/") {
			c.fail(at+"/content", "%q is not a media type (range)", mt)
		}
		c.mediaType(at+"/content/"+mt, m)
	}
}

func (c *oas) mediaType(at string, v any) {
	m, ok := c.fields(at, v, nil, "schema", "example", "examples", "encoding")
	if !ok {
		return
	}
	if s, present := m["schema"]; present {
		c.schema(at+"/schema", s)
	}
	c.exampleXORExamples(at, m)
	for name, e := range c.object(at, m, "encoding") {
		eAt := at + "/encoding/" + name
		if enc, ok := c.fields(eAt, e, nil, "contentType", "headers", "style", "explode", "allowReserved"); ok {
			for hn, h := range c.object(eAt, enc, "headers") {
				c.header(eAt+"/headers/"+hn, h)
			}
		}
	}
}

func (c *oas) response(at string, v any) {
	if _, isRef := c.ref(at, v, "#/components/responses/"); isRef {
		return
	}
	r, ok := c.fields(at, v, []string{"description"}, "headers", "content", "links")
	if !ok {
		return
	}
	c.str(at, r, "description")
	for name, h := range c.object(at, r, "headers") {
		if strings.EqualFold(name, "Content-Type") {
			c.fail(at+"/headers", "a Content-Type header is ignored by OpenAPI")
		}
		c.header(at+"/headers/"+name, h)
	}
	c.content(at, r)
	if r["links"] != nil {
		c.fail(at, "links are not checked by this test; extend it before using them")
	}
}

func (c *oas) securityScheme(at string, v any) {
	if _, isRef := c.ref(at, v, "#/components/securitySchemes/"); isRef {
		return
	}
	s, ok := v.(map[string]any)
	if !ok {
		c.fail(at, "must be an object")
		return
	}
	switch s["type"] {
	case "apiKey":
		c.fields(at, s, []string{"type", "name", "in"}, "description")
		if !slices.Contains([]any{"query", "header", "cookie"}, s["in"]) {
			c.fail(at, "in must be query, header or cookie")
		}
	case "http":
		c.fields(at, s, []string{"type", "scheme"}, "description", "bearerFormat")
		if s["bearerFormat"] != nil && !strings.EqualFold(fmt.Sprint(s["scheme"]), "bearer") {
			c.fail(at, "bearerFormat is for the bearer scheme only")
		}
	case "oauth2", "openIdConnect":
		c.fail(at, "%s schemes are not checked by this test; extend it before using them", s["type"])
	default:
		c.fail(at, "type must be apiKey, http, oauth2 or openIdConnect, got %v", s["type"])
	}
}

func (c *oas) security(at string, v any, schemes map[string]any) {
	if v == nil {
		return
	}
	list, ok := v.([]any)
	if !ok {
		c.fail(at, "must be a list")
		return
	}
	for i, req := range list {
		obj, ok := req.(map[string]any)
		if !ok {
			c.fail(fmt.Sprintf("%s/%d", at, i), "must be an object")
			continue
		}
		for name, scopes := range obj {
			if _, ok := schemes[name]; !ok {
				c.fail(fmt.Sprintf("%s/%d", at, i), "security scheme %q is not defined in components", name)
			}
			if l, ok := scopes.([]any); !ok || len(l) != 0 {
				c.fail(fmt.Sprintf("%s/%d/%s", at, i, name), "must be an empty list of scopes")
			}
		}
	}
}

// schemaFields are the Schema Object's fields in OpenAPI 3.0.3: a subset of
// JSON Schema draft 5 plus OpenAPI's own.
var schemaFields = []string{
	"title", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
	"maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems",
	"maxProperties", "minProperties", "required", "enum",
	"type", "allOf", "oneOf", "anyOf", "not", "items", "properties", "additionalProperties",
	"description", "format", "default",
	"nullable", "discriminator", "readOnly", "writeOnly", "xml", "externalDocs", "example", "deprecated",
}

func (c *oas) schema(at string, v any) {
	if _, isRef := c.ref(at, v, "#/components/schemas/"); isRef {
		return
	}
	s, ok := c.fields(at, v, nil, schemaFields...)
	if !ok {
		return
	}
	typ, hasType := s["type"].(string)
	if _, present := s["type"]; present && (!hasType || !slices.Contains([]string{"array", "boolean", "integer", "number", "object", "string"}, typ)) {
		c.fail(at+"/type", "type must be one of array, boolean, integer, number, object, string (one string), got %v", s["type"])
	}
	if typ == "array" && s["items"] == nil {
		c.fail(at, "an array schema must have items")
	}
	for _, f := range []string{"title", "description", "format", "pattern"} {
		c.str(at, s, f)
	}
	if p, ok := s["pattern"].(string); ok {
		if _, err := regexp.Compile(p); err != nil {
			c.fail(at+"/pattern", "does not compile: %v", err)
		}
	}
	for _, f := range []string{"exclusiveMaximum", "exclusiveMinimum", "uniqueItems", "nullable", "readOnly", "writeOnly", "deprecated"} {
		c.boolean(at, s, f)
	}
	if s["readOnly"] == true && s["writeOnly"] == true {
		c.fail(at, "readOnly and writeOnly exclude each other")
	}
	for _, f := range []string{"maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"} {
		if raw, present := s[f]; present {
			n, ok := raw.(json.Number)
			if i, err := n.Int64(); !ok || err != nil || i < 0 {
				c.fail(at+"/"+f, "must be a non-negative integer")
			}
		}
	}
	for _, f := range []string{"maximum", "minimum", "multipleOf"} {
		if raw, present := s[f]; present {
			n, ok := raw.(json.Number)
			x, err := n.Float64()
			if !ok || err != nil || (f == "multipleOf" && x <= 0) {
				c.fail(at+"/"+f, "must be a number (multipleOf: above 0)")
			}
		}
	}
	if raw, present := s["required"]; present {
		names, ok := raw.([]any)
		if !ok || len(names) == 0 {
			c.fail(at+"/required", "required must be a non-empty list of property names (leave it out instead)")
		}
		seen := map[any]bool{}
		for _, n := range names {
			if _, ok := n.(string); !ok {
				c.fail(at+"/required", "must hold strings")
			}
			if seen[n] {
				c.fail(at+"/required", "required names %v twice", n)
			}
			seen[n] = true
		}
	}
	if raw, present := s["enum"]; present {
		if values, ok := raw.([]any); !ok || len(values) == 0 {
			c.fail(at+"/enum", "enum must be a non-empty list")
		}
	}
	for _, f := range []string{"allOf", "oneOf", "anyOf"} {
		if raw, present := s[f]; present {
			list, ok := raw.([]any)
			if !ok || len(list) == 0 {
				c.fail(at+"/"+f, "must be a non-empty list of schemas")
			}
			for i, sub := range list {
				c.schema(fmt.Sprintf("%s/%s/%d", at, f, i), sub)
			}
		}
	}
	for _, f := range []string{"not", "items"} {
		if sub, present := s[f]; present {
			c.schema(at+"/"+f, sub)
		}
	}
	for name, sub := range c.object(at, s, "properties") {
		c.schema(at+"/properties/"+name, sub)
	}
	if ap, present := s["additionalProperties"]; present {
		if _, isBool := ap.(bool); !isBool {
			c.schema(at+"/additionalProperties", ap)
		}
	}
	if d := c.object(at, s, "discriminator"); d != nil {
		c.fields(at+"/discriminator", d, []string{"propertyName"}, "mapping")
	}
	if x := c.object(at, s, "xml"); x != nil {
		c.fields(at+"/xml", x, nil, "name", "namespace", "prefix", "attribute", "wrapped")
	}
}
