package openapi_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/openapi"
)

// wireTypes pairs every schema component with the type of pkg/wire that the
// server encodes (answers) or decodes (requests) for it, and pkg/client the
// other way round.
var wireTypes = map[string]reflect.Type{
	"Error":                reflect.TypeFor[wire.Error](),
	"Ok":                   reflect.TypeFor[wire.OK](),
	"Ready":                reflect.TypeFor[wire.Ready](),
	"LogWitnesses":         reflect.TypeFor[wire.LogWitnesses](),
	"LogWitness":           reflect.TypeFor[wire.LogWitness](),
	"Package":              reflect.TypeFor[wire.Package](),
	"PackageDownloads":     reflect.TypeFor[wire.PackageDownloads](),
	"DownloadDay":          reflect.TypeFor[wire.DownloadDay](),
	"Version":              reflect.TypeFor[wire.Version](),
	"Signature":            reflect.TypeFor[wire.Signature](),
	"Key":                  reflect.TypeFor[wire.Key](),
	"User":                 reflect.TypeFor[wire.User](),
	"PackageList":          reflect.TypeFor[wire.PackageList](),
	"PackageDetail":        reflect.TypeFor[wire.PackageDetail](),
	"PublishResult":        reflect.TypeFor[wire.PublishResult](),
	"SignedPublishResult":  reflect.TypeFor[wire.SignedPublishResult](),
	"PublishedVersion":     reflect.TypeFor[wire.PublishedVersion](),
	"MeResult":             reflect.TypeFor[wire.MeResult](),
	"MeToken":              reflect.TypeFor[wire.MeToken](),
	"KeyList":              reflect.TypeFor[wire.KeyList](),
	"KeyResult":            reflect.TypeFor[wire.KeyResult](),
	"PublishRequest":       reflect.TypeFor[wire.PublishRequest](),
	"SignedPublishRequest": reflect.TypeFor[wire.SignedPublishRequest](),
	"SSHKeyRequest":        reflect.TypeFor[wire.SSHKeyRequest](),
	// Yanking and deprecating.
	"YankRequest":      reflect.TypeFor[wire.YankRequest](),
	"YankResult":       reflect.TypeFor[wire.YankResult](),
	"DeprecateRequest": reflect.TypeFor[wire.DeprecateRequest](),
	"DeprecateResult":  reflect.TypeFor[wire.DeprecateResult](),
	// A package's settings.
	"PackageSettingsRequest": reflect.TypeFor[wire.PackageSettingsRequest](),
	"PackageSettingsResult":  reflect.TypeFor[wire.PackageSettingsResult](),
	"Token":                  reflect.TypeFor[wire.Token](),
	"TokenList":              reflect.TypeFor[wire.TokenList](),
	"CreatedToken":           reflect.TypeFor[wire.CreatedToken](),
	"TokenRequest":           reflect.TypeFor[wire.TokenRequest](),
	// Logging in through the browser.
	"DeviceLoginRequest": reflect.TypeFor[wire.DeviceLoginRequest](),
	"DeviceLogin":        reflect.TypeFor[wire.DeviceLogin](),
	"DeviceTokenRequest": reflect.TypeFor[wire.DeviceTokenRequest](),
	// Trusted publishing.
	"TrustedPublisher":        reflect.TypeFor[wire.TrustedPublisher](),
	"TrustedPublisherList":    reflect.TypeFor[wire.TrustedPublisherList](),
	"CreatedTrustedPublisher": reflect.TypeFor[wire.CreatedTrustedPublisher](),
	"Maker":                   reflect.TypeFor[wire.Maker](),
	"TrustedPublisherRequest": reflect.TypeFor[wire.TrustedPublisherRequest](),
	"OIDCExchangeRequest":     reflect.TypeFor[wire.OIDCExchangeRequest](),
	"OIDCExchange":            reflect.TypeFor[wire.OIDCExchange](),
	"CI":                      reflect.TypeFor[wire.CI](),
	// Releases.
	"ReleaseRequest": reflect.TypeFor[wire.ReleaseRequest](),
	"Release":        reflect.TypeFor[wire.Release](),
	"ReleaseSummary": reflect.TypeFor[wire.ReleaseSummary](),
	"ReleaseResult":  reflect.TypeFor[wire.ReleaseResult](),
	"ReleaseDetail":  reflect.TypeFor[wire.ReleaseDetail](),
	"ReleaseList":    reflect.TypeFor[wire.ReleaseList](),
	// Organisations.
	"OrgRequest":     reflect.TypeFor[wire.OrgRequest](),
	"Org":            reflect.TypeFor[wire.Org](),
	"Member":         reflect.TypeFor[wire.Member](),
	"OrgResult":      reflect.TypeFor[wire.OrgResult](),
	"MemberList":     reflect.TypeFor[wire.MemberList](),
	"Membership":     reflect.TypeFor[wire.Membership](),
	"MembershipList": reflect.TypeFor[wire.MembershipList](),
	"MemberRequest":  reflect.TypeFor[wire.MemberRequest](),
	"MemberResult":   reflect.TypeFor[wire.MemberResult](),
	"MemberRemoved":  reflect.TypeFor[wire.MemberRemoved](),
	"PublishedBy":    reflect.TypeFor[wire.PublishedBy](),
	// Webhooks.
	"HookRequest":        reflect.TypeFor[wire.HookRequest](),
	"Hook":               reflect.TypeFor[wire.Hook](),
	"HookResult":         reflect.TypeFor[wire.HookResult](),
	"HookList":           reflect.TypeFor[wire.HookList](),
	"HookDelivery":       reflect.TypeFor[wire.HookDelivery](),
	"HookDeliveryList":   reflect.TypeFor[wire.HookDeliveryList](),
	"HookDeliveryResult": reflect.TypeFor[wire.HookDeliveryResult](),
	"HookPayload":        reflect.TypeFor[wire.HookPayload](),
}

// formFields pairs the multipart schemas with the field names of pkg/wire.
var formFields = map[string][]string{
	"PublishForm": {wire.FormFile, wire.FormContent, wire.FormName, wire.FormDescription, wire.FormOwner},
}

// The OpenAPI document and pkg/wire describe the same JSON: every schema
// has its wire type and the other way round, with the same field names,
// required exactly where the type never omits the field, the same types,
// and null exactly where the type can send null.
func TestSchemasMatchTheWireTypes(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(openapi.JSON, &doc); err != nil {
		t.Fatal(err)
	}
	for _, problem := range wireProblems(doc, wireTypes, formFields) {
		t.Error(problem)
	}
}

// Every exported struct of pkg/wire is a body of the interface, so each
// must be paired with its schema above; a type added to pkg/wire without
// its schema fails here.
func TestEveryWireTypeHasASchema(t *testing.T) {
	paired := map[string]bool{}
	for _, typ := range wireTypes {
		paired[typ.Name()] = true
	}
	const dir = "../../pkg/wire"
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var structs []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if spec, ok := n.(*ast.TypeSpec); ok && spec.Name.IsExported() {
				if _, isStruct := spec.Type.(*ast.StructType); isStruct {
					structs = append(structs, spec.Name.Name)
				}
			}
			return true
		})
	}
	if len(structs) < len(wireTypes) {
		t.Fatalf("found %d structs in pkg/wire, fewer than the %d paired with schemas", len(structs), len(wireTypes))
	}
	for _, name := range structs {
		if !paired[name] {
			t.Errorf("wire.%s has no schema in openapi.json (pair it in wireTypes)", name)
		}
	}
}

// The check finds each kind of mismatch it exists for, so that its silence
// above means something.
func TestWireCheckFindsMismatches(t *testing.T) {
	type Thing struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	type Good struct {
		OK     bool       `json:"ok"`
		Things []Thing    `json:"things"`
		Thing  *Thing     `json:"thing"`
		At     time.Time  `json:"at"`
		Maybe  *time.Time `json:"maybe"`
	}
	type Body struct {
		Content wire.Bytes `json:"content"`
		Count   *int64     `json:"count"`
		Note    *string    `json:"note,omitempty"`
	}
	thing := `{"type":"object","required":["id","name"],"properties":{"id":{"type":"integer","format":"int64"},"name":{"type":"string"}}}`
	good := `{"type":"object","required":["ok","things","thing","at","maybe"],"properties":{
		"ok":{"type":"boolean"},"things":{"type":"array","items":{"$ref":"#/components/schemas/Thing"}},
		"thing":{"nullable":true,"allOf":[{"$ref":"#/components/schemas/Thing"}]},
		"at":{"type":"string","format":"date-time"},"maybe":{"type":"string","format":"date-time","nullable":true}}}`
	body := `{"type":"object","required":["content","count"],"properties":{
		"content":{"type":"string"},"count":{"type":"integer","format":"int64"},"note":{"type":"string"}}}`
	form := `{"type":"object","properties":{"file":{"type":"string","format":"binary"},"text":{"type":"string"}}}`
	paths := `{"/good":{"post":{
		"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Body"}},
			"multipart/form-data":{"schema":{"$ref":"#/components/schemas/Form"}}}},
		"responses":{"200":{"description":"x","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Good"}}}}}}}}`
	types := map[string]reflect.Type{
		"Thing": reflect.TypeFor[Thing](), "Good": reflect.TypeFor[Good](), "Body": reflect.TypeFor[Body](),
	}
	forms := map[string][]string{"Form": {"file", "text"}}
	build := func(replace ...string) map[string]any {
		text := `{"paths":` + paths + `,"components":{"schemas":{"Thing":` + thing + `,"Good":` + good +
			`,"Body":` + body + `,"Form":` + form + `}}}`
		text = strings.NewReplacer(replace...).Replace(text)
		var doc map[string]any
		if err := json.Unmarshal([]byte(text), &doc); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		return doc
	}
	if problems := wireProblems(build(), types, forms); len(problems) != 0 {
		t.Fatalf("the matching document is refused: %v", problems)
	}

	type Other struct {
		ID int64 `json:"id"`
	}
	type Omitting struct {
		ID   int64  `json:"id"`
		Name string `json:"name,omitempty"`
	}
	type Int32ID struct {
		ID   int32  `json:"id"`
		Name string `json:"name"`
	}
	type NullableName struct {
		ID   int64   `json:"id"`
		Name *string `json:"name"`
	}
	type Untagged struct {
		ID   int64 `json:"id"`
		Name string
	}
	mutations := []struct {
		name    string
		replace []string
		retype  map[string]reflect.Type
		forms   map[string][]string
		want    string
	}{
		{name: "property missing from the type", replace: []string{`"name":{"type":"string"}}`, `"name":{"type":"string"},"extra":{"type":"string"}}`},
			want: "Thing.extra is in the schema but not in"},
		{name: "field missing from the schema", retype: map[string]reflect.Type{"Thing": reflect.TypeFor[Other]()},
			want: "Thing.name is in the schema but not in"},
		{name: "required but omitempty", retype: map[string]reflect.Type{"Thing": reflect.TypeFor[Omitting]()},
			want: "Thing.name is required, yet the wire type omits it when empty"},
		{name: "always sent but not required", replace: []string{`"required":["content","count"]`, `"required":["content"]`},
			want: "Body.count is always sent, yet not required"},
		{name: "string against integer", replace: []string{`"id":{"type":"integer","format":"int64"}`, `"id":{"type":"string"}`},
			want: "Thing.id is string in the schema but int64"},
		{name: "integer format", retype: map[string]reflect.Type{"Thing": reflect.TypeFor[Int32ID]()},
			want: "Thing.id is integer (int64) in the schema but int32"},
		{name: "boolean against string", replace: []string{`"ok":{"type":"boolean"}`, `"ok":{"type":"string"}`},
			want: "Good.ok is string in the schema but bool"},
		{name: "array against object", replace: []string{`"things":{"type":"array","items":{"$ref":"#/components/schemas/Thing"}}`, `"things":{"$ref":"#/components/schemas/Thing"}`},
			want: "Good.things refers to Thing, but its wire type is []"},
		{name: "array of the wrong items", replace: []string{`"items":{"$ref":"#/components/schemas/Thing"}`, `"items":{"type":"string"}`},
			want: "Good.things[] is string in the schema but"},
		{name: "time without date-time", replace: []string{`"at":{"type":"string","format":"date-time"}`, `"at":{"type":"string"}`},
			want: "Good.at is a time, yet the schema's format is not date-time"},
		{name: "date-time without time", replace: []string{`"content":{"type":"string"}`, `"content":{"type":"string","format":"date-time"}`},
			want: "Body.content has format date-time"},
		{name: "nullable in the schema only", replace: []string{`"name":{"type":"string"}}`, `"name":{"type":"string","nullable":true}}`},
			want: "Thing.name may be null in the schema"},
		{name: "null sent but not nullable", replace: []string{`"maybe":{"type":"string","format":"date-time","nullable":true}`, `"maybe":{"type":"string","format":"date-time"}`},
			want: "Good.maybe can be null on the wire, yet the schema does not allow null"},
		{name: "nullable object not allowing null", replace: []string{`"thing":{"nullable":true,"allOf"`, `"thing":{"allOf"`},
			want: "Good.thing can be null on the wire"},
		{name: "pointer in a response", retype: map[string]reflect.Type{"Thing": reflect.TypeFor[NullableName]()},
			want: "Thing.name can be null on the wire"},
		{name: "field without a tag", retype: map[string]reflect.Type{"Thing": reflect.TypeFor[Untagged]()},
			want: "has no json tag"},
		{name: "schema without a wire type", replace: []string{`"Body":`, `"Unpaired":`},
			want: "schema Unpaired has no wire type"},
		{name: "wire type without a schema", retype: map[string]reflect.Type{"Missing": reflect.TypeFor[Other]()},
			want: "has no schema Missing"},
		{name: "form field missing", forms: map[string][]string{"Form": {"file"}},
			want: "Form.text is in the schema but not a form field"},
		{name: "form field not described", forms: map[string][]string{"Form": {"file", "text", "note"}},
			want: "Form.note is a form field but not in the schema"},
		{name: "inline body", replace: []string{`"schema":{"$ref":"#/components/schemas/Good"}`, `"schema":{"type":"object"}`},
			want: "POST /good 200: an inline JSON schema"},
	}
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			types := maps.Clone(types)
			maps.Copy(types, m.retype)
			forms := forms
			if m.forms != nil {
				forms = m.forms
			}
			problems := wireProblems(build(m.replace...), types, forms)
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, m.want) }) {
				t.Errorf("no problem says %q; got %q", m.want, problems)
			}
		})
	}
}

// wireProblems compares the schema components of doc with their wire
// types (JSON bodies) and form fields (multipart bodies).
func wireProblems(doc map[string]any, types map[string]reflect.Type, forms map[string][]string) []string {
	w := wireCheck{doc: doc, types: types, requests: map[string]bool{}, responses: map[string]bool{}}
	w.schemas, _ = dig(doc, "components", "schemas").(map[string]any)
	w.directions()
	for _, name := range slices.Sorted(maps.Keys(w.schemas)) {
		schema, _ := w.schemas[name].(map[string]any)
		if fields, ok := forms[name]; ok {
			w.form(name, schema, fields)
			continue
		}
		typ, ok := types[name]
		if !ok {
			w.fail("schema %s has no wire type", name)
			continue
		}
		w.object(name, schema, typ)
	}
	for _, name := range slices.Sorted(maps.Keys(types)) {
		if w.schemas[name] == nil {
			w.fail("the wire type of %s has no schema %s in components.schemas", types[name], name)
		}
	}
	return w.problems
}

type wireCheck struct {
	doc       map[string]any
	schemas   map[string]any
	types     map[string]reflect.Type
	requests  map[string]bool // schemas a client sends
	responses map[string]bool // schemas the server sends
	problems  []string
}

func (w *wireCheck) fail(format string, args ...any) {
	w.problems = append(w.problems, fmt.Sprintf(format, args...))
}

// directions finds which schemas are sent by clients and which by the
// server, following $refs from request and response bodies.
func (w *wireCheck) directions() {
	paths, _ := w.doc["paths"].(map[string]any)
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		item, _ := paths[path].(map[string]any)
		for _, method := range slices.Sorted(maps.Keys(item)) {
			op, _ := item[method].(map[string]any)
			at := strings.ToUpper(method) + " " + path
			content, _ := dig(op, "requestBody", "content").(map[string]any)
			for _, mt := range slices.Sorted(maps.Keys(content)) {
				w.reach(at+" request", mt, dig(content, mt, "schema"), w.requests)
			}
			responses, _ := op["responses"].(map[string]any)
			for _, status := range slices.Sorted(maps.Keys(responses)) {
				content, _ := dig(responses, status, "content").(map[string]any)
				for _, mt := range slices.Sorted(maps.Keys(content)) {
					// The document itself is served as it is, not from a wire type.
					if path == "/openapi.json" && status == "200" {
						continue
					}
					w.reach(at+" "+status, mt, dig(content, mt, "schema"), w.responses)
				}
			}
		}
	}
}

// reach marks the schema of one body, and every schema it refers to.
func (w *wireCheck) reach(at, mediaType string, schema any, into map[string]bool) {
	s, _ := schema.(map[string]any)
	name := refName(s)
	if name == "" {
		if mediaType == "application/json" {
			w.fail("%s: an inline JSON schema; JSON bodies are components with a wire type", at)
		}
		return
	}
	var mark func(name string)
	mark = func(name string) {
		if into[name] {
			return
		}
		into[name] = true
		schema, _ := w.schemas[name].(map[string]any)
		props, _ := schema["properties"].(map[string]any)
		for _, p := range props {
			p, _ := p.(map[string]any)
			if items, ok := p["items"].(map[string]any); ok {
				p = items
			}
			if ref := refName(p); ref != "" {
				mark(ref)
			}
		}
	}
	mark(name)
}

// jsonField is one field of a struct as encoding/json sees it.
type jsonField struct {
	name      string
	omitempty bool
	typ       reflect.Type
}

func (w *wireCheck) fields(name string, typ reflect.Type) map[string]jsonField {
	out := map[string]jsonField{}
	for f := range typ.Fields() {
		if !f.IsExported() {
			continue
		}
		tag, ok := f.Tag.Lookup("json")
		if tag == "-" {
			continue
		}
		if f.Anonymous {
			w.fail("%s: %s is embedded; wire types name each field", name, f.Name)
			continue
		}
		if !ok {
			w.fail("%s: field %s has no json tag", name, f.Name)
			continue
		}
		jsonName, opts, _ := strings.Cut(tag, ",")
		if jsonName == "" {
			jsonName = f.Name
		}
		out[jsonName] = jsonField{name: jsonName, omitempty: slices.Contains(strings.Split(opts, ","), "omitempty"), typ: f.Type}
	}
	return out
}

// object compares an object schema with its struct.
func (w *wireCheck) object(name string, schema map[string]any, typ reflect.Type) {
	if typ.Kind() != reflect.Struct {
		w.fail("%s: the wire type %s is not a struct", name, typ)
		return
	}
	if schema["type"] != "object" {
		w.fail("%s: the schema is not an object", name)
	}
	fields := w.fields(name, typ)
	props, _ := schema["properties"].(map[string]any)
	required := map[string]bool{}
	list, _ := schema["required"].([]any)
	for _, r := range list {
		required[fmt.Sprint(r)] = true
	}
	for _, prop := range slices.Sorted(maps.Keys(props)) {
		if _, ok := fields[prop]; !ok {
			w.fail("%s.%s is in the schema but not in the wire type %s", name, prop, typ)
		}
	}
	for _, jsonName := range slices.Sorted(maps.Keys(fields)) {
		f := fields[jsonName]
		at := name + "." + jsonName
		prop, ok := props[jsonName].(map[string]any)
		if !ok {
			w.fail("%s is in the wire type %s but not in the schema", at, typ)
			continue
		}
		switch {
		case required[jsonName] && f.omitempty:
			w.fail("%s is required, yet the wire type omits it when empty", at)
		case !required[jsonName] && !f.omitempty:
			w.fail("%s is always sent, yet not required in the schema", at)
		}
		w.value(at, prop, f.typ, f.omitempty, w.responses[name])
	}
}

var (
	timeType  = reflect.TypeFor[time.Time]()
	bytesType = reflect.TypeFor[wire.Bytes]()
)

// value compares one property (or array item) with its Go type. sent says
// the server sends it, where a pointer that is not omitted may be null.
func (w *wireCheck) value(at string, prop map[string]any, typ reflect.Type, omitempty, sent bool) {
	nullable := prop["nullable"] == true
	pointer := typ.Kind() == reflect.Pointer
	if pointer {
		typ = typ.Elem()
	}
	switch {
	case nullable && (!pointer || omitempty):
		w.fail("%s may be null in the schema, yet the wire type never sends null", at)
	case sent && pointer && !omitempty && !nullable:
		w.fail("%s can be null on the wire, yet the schema does not allow null", at)
	}

	ref := refName(prop)
	if all, ok := prop["allOf"].([]any); ok && len(all) == 1 {
		one, _ := all[0].(map[string]any)
		ref = refName(one)
	}
	if ref != "" {
		if want := w.types[ref]; want != typ {
			w.fail("%s refers to %s, but its wire type is %s, not %v", at, ref, typ, want)
		}
		return
	}
	kind, _ := prop["type"].(string)
	format, _ := prop["format"].(string)
	goKind := typ.Kind()
	switch {
	case typ == timeType:
		if kind != "string" || format != "date-time" {
			w.fail("%s is a time, yet the schema's format is not date-time (type %q, format %q)", at, kind, format)
		}
		return
	case format == "date-time":
		w.fail("%s has format date-time in the schema, yet the wire type is %s, not time.Time", at, typ)
		return
	}
	match := false
	switch kind {
	case "": // {}: any JSON value, as an artifact's fields beyond the known ones
		match = len(prop) == 0 && goKind == reflect.Interface
	case "string":
		match = goKind == reflect.String || typ == bytesType
	case "integer":
		match = goKind >= reflect.Int && goKind <= reflect.Uint64
		if match && (format == "int64") != (goKind == reflect.Int64 || goKind == reflect.Uint64) {
			w.fail("%s is integer (%s) in the schema but %s in the wire type", at, format, typ)
			return
		}
	case "boolean":
		match = goKind == reflect.Bool
	case "object": // a map: additionalProperties is its value's schema
		if goKind == reflect.Map && typ.Key().Kind() == reflect.String {
			values, _ := prop["additionalProperties"].(map[string]any)
			w.value(at+"{}", values, typ.Elem(), false, sent)
			return
		}
	case "array":
		if goKind == reflect.Slice && typ != bytesType {
			items, _ := prop["items"].(map[string]any)
			w.value(at+"[]", items, typ.Elem(), false, sent)
			return
		}
	}
	if !match {
		w.fail("%s is %s in the schema but %s in the wire type", at, orInline(kind), typ)
	}
}

// form compares a multipart schema with the field names of pkg/wire.
func (w *wireCheck) form(name string, schema map[string]any, fields []string) {
	props, _ := schema["properties"].(map[string]any)
	for _, prop := range slices.Sorted(maps.Keys(props)) {
		if !slices.Contains(fields, prop) {
			w.fail("%s.%s is in the schema but not a form field of pkg/wire", name, prop)
		}
	}
	for _, f := range fields {
		if _, ok := props[f]; !ok {
			w.fail("%s.%s is a form field but not in the schema", name, f)
		}
	}
}

func orInline(kind string) string {
	if kind == "" {
		return "an untyped or inline value"
	}
	return kind
}

// refName is the component a {"$ref": "#/components/schemas/X"} names.
func refName(schema map[string]any) string {
	ref, _ := schema["$ref"].(string)
	return strings.TrimPrefix(ref, "#/components/schemas/")
}

func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
