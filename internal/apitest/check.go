package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/pact-registry/pact/internal/openapicheck"
)

func init() {
	// kin-openapi decodes a body only for media types it knows; raw pack
	// documents are plain text as far as the schema (type string) goes.
	openapi3filter.RegisterBodyDecoder("text/markdown", openapi3filter.PlainBodyDecoder)
}

// Spec loads the OpenAPI document from the copy embedded in server/openapi,
// validated.
func Spec() (*openapi3.T, error) { return openapicheck.Load() }

// checker validates responses against the document. It is built once and
// only read afterwards, so every Client and test shares it.
type checker struct {
	// strict routes with templates whose path parameters carry the pattern
	// the document gives them (see strictRouter); loose routes with the
	// templates as published.
	strict, loose routers.Router
	// publishedPath maps a strict template back to the published one, for
	// messages.
	publishedPath map[string]string
	errorSchema   *openapi3.Schema
}

var sharedChecker = sync.OnceValues(newChecker)

func newChecker() (*checker, error) {
	doc, err := Spec()
	if err != nil {
		return nil, err
	}
	loose, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("apitest: routing openapi.json: %w", err)
	}
	strict, published, err := strictRouter()
	if err != nil {
		return nil, err
	}
	errorRef := doc.Components.Schemas["Error"]
	if errorRef == nil || errorRef.Value == nil {
		return nil, errors.New("apitest: openapi.json has no components.schemas.Error")
	}
	return &checker{strict: strict, loose: loose, publishedPath: published, errorSchema: errorRef.Value}, nil
}

// strictRouter builds a router from a second copy of the document whose path
// templates carry each path parameter's documented pattern, in gorilla/mux's
// {name:regexp} form.
//
// Why: the published templates /raw/{owner}/{pack}.pact.md and
// /raw/{owner}/{pack}@{version}.pact.md both match /raw/alice/foo@1.0.pact.md
// (pack = "foo@1.0" for the first), and kin-openapi's gorillamux router tries
// templates with fewer variables first, ignoring parameter schemas. The
// document says a pack slug is [a-z0-9-], so only the pinned template can
// match; honouring the patterns lets the router pick the operation the
// document means. The published document stays plain OpenAPI.
func strictRouter() (routers.Router, map[string]string, error) {
	doc, err := Spec()
	if err != nil {
		return nil, nil, err
	}
	published := make(map[string]string, doc.Paths.Len())
	rewritten := openapi3.NewPaths()
	for path, item := range doc.Paths.Map() {
		strict := withParameterPatterns(path, item)
		published[strict] = path
		rewritten.Set(strict, item)
	}
	doc.Paths = rewritten
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("apitest: routing openapi.json with parameter patterns: %w", err)
	}
	return router, published, nil
}

// withParameterPatterns turns /raw/{owner}/{pack}.pact.md into
// /raw/{owner:re}/{pack:re}.pact.md for the path parameters of item that have
// a pattern (anchors removed: gorilla/mux anchors the whole path itself).
func withParameterPatterns(path string, item *openapi3.PathItem) string {
	patterns := map[string]string{}
	collect := func(params openapi3.Parameters) {
		for _, ref := range params {
			p := ref.Value
			if p == nil || p.In != openapi3.ParameterInPath || p.Schema == nil || p.Schema.Value == nil {
				continue
			}
			if re := p.Schema.Value.Pattern; re != "" {
				patterns[p.Name] = strings.TrimSuffix(strings.TrimPrefix(re, "^"), "$")
			}
		}
	}
	collect(item.Parameters)
	for _, op := range item.Operations() {
		collect(op.Parameters)
	}
	for name, re := range patterns {
		path = strings.ReplaceAll(path, "{"+name+"}", "{"+name+":"+re+"}")
	}
	return path
}

// findRoute finds the documented operation of req. A path the strict router
// refuses (say /raw/Alice/x.pact.md, which breaks the owner pattern) is still
// a documented route, so the loose router gets a second look.
func (c *checker) findRoute(req *http.Request) (*routers.Route, map[string]string, error) {
	route, params, err := c.strict.FindRoute(req)
	if err == nil {
		if path, ok := c.publishedPath[route.Path]; ok {
			route.Path = path
		}
		return route, params, nil
	}
	if errors.Is(err, routers.ErrMethodNotAllowed) {
		return nil, nil, err
	}
	return c.loose.FindRoute(req)
}

// check returns what is wrong with resp as the answer to req, and the
// operationId it was checked against ("" when the path is not documented).
// routed is req with its URL path relative to the service's root.
func (c *checker) check(routed *http.Request, resp *Response) (operationID string, problems []string) {
	route, params, err := c.findRoute(routed)
	if err != nil {
		return "", c.checkUndocumented(routed, resp, err)
	}
	op := route.Operation
	operationID = op.OperationID

	documented := op.Responses.Status(resp.Status)
	if documented == nil {
		documented = op.Responses.Default()
	}
	if documented == nil || documented.Value == nil {
		return operationID, []string{fmt.Sprintf("status %d is not documented for %s %s", resp.Status, routed.Method, route.Path)}
	}

	if routed.Method != http.MethodHead {
		problems = append(problems, jsonContentTypeProblems(documented.Value, resp)...)
	}

	// ValidateResponse skips HEAD answers entirely; their headers are still
	// part of the contract, so they are checked as if answering a GET, with
	// no body.
	validated := routed
	options := &openapi3filter.Options{
		IncludeResponseStatus:   true,
		MultiError:              true,
		SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.DisableSchemaErrorDetails()},
	}
	if routed.Method == http.MethodHead {
		validated = routed.Clone(routed.Context())
		validated.Method = http.MethodGet
		options.ExcludeResponseBody = true
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    validated,
			PathParams: params,
			Route:      route,
			Options:    options,
		},
		Status:  resp.Status,
		Header:  resp.Header,
		Body:    io.NopCloser(bytes.NewReader(resp.Body)),
		Options: options,
	}
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		problems = append(problems, err.Error())
	}
	return operationID, problems
}

// jsonContentTypeProblems checks that a body documented as JSON, or that is
// JSON, is served as application/json (a charset parameter is allowed).
func jsonContentTypeProblems(documented *openapi3.Response, resp *Response) []string {
	if len(resp.Body) == 0 {
		return nil
	}
	got := mediaType(resp.Header.Get("Content-Type"))
	if got == "application/json" {
		return nil
	}
	if documented.Content.Get("application/json") != nil && len(documented.Content) == 1 {
		return []string{fmt.Sprintf("the body is documented as application/json but Content-Type is %q", resp.Header.Get("Content-Type"))}
	}
	if looksLikeJSON(resp.Body) {
		return []string{fmt.Sprintf("a JSON body is served with Content-Type %q, not application/json", resp.Header.Get("Content-Type"))}
	}
	return nil
}

// checkUndocumented accepts only the JSON 404/405 answers the protocol
// promises for paths outside the document: unknown /api routes (and /raw
// addresses, which the API side serves too).
func (c *checker) checkUndocumented(routed *http.Request, resp *Response, routeErr error) []string {
	path := routed.URL.Path
	underAPI := path == "/api" || strings.HasPrefix(path, "/api/") || strings.HasPrefix(path, "/raw/")
	methodNotAllowed := errors.Is(routeErr, routers.ErrMethodNotAllowed)
	switch {
	case !underAPI && methodNotAllowed:
		return []string{fmt.Sprintf("route not in openapi.json: the path is documented, but not for method %s", routed.Method)}
	case !underAPI:
		return []string{fmt.Sprintf("route not in openapi.json: no documented path matches %s", path)}
	case methodNotAllowed && resp.Status != http.StatusMethodNotAllowed:
		return []string{fmt.Sprintf("method %s is not documented for this path, so the answer must be 405 with the error object, got %d", routed.Method, resp.Status)}
	case !methodNotAllowed && resp.Status != http.StatusNotFound:
		return []string{fmt.Sprintf("route not in openapi.json: an unknown path must be answered 404 with the error object, got %d", resp.Status)}
	}
	if routed.Method == http.MethodHead {
		return nil
	}
	return c.errorBodyProblems(resp)
}

func (c *checker) errorBodyProblems(resp *Response) []string {
	var problems []string
	if ct := resp.Header.Get("Content-Type"); mediaType(ct) != "application/json" {
		problems = append(problems, fmt.Sprintf("an error body must be application/json, Content-Type is %q", ct))
	}
	var value any
	if err := json.Unmarshal(resp.Body, &value); err != nil {
		return append(problems, fmt.Sprintf("the error body is not JSON: %v", err))
	}
	err := c.errorSchema.VisitJSON(value, openapi3.MultiErrors(), openapi3.VisitAsResponse(), openapi3.DisableSchemaErrorDetails())
	if err != nil {
		problems = append(problems, fmt.Sprintf("the body does not match the Error schema {ok:false, error}: %v", err))
	}
	return problems
}

func mediaType(contentType string) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(contentType))
	}
	return mt
}

func looksLikeJSON(body []byte) bool {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return false
	}
	return json.Valid(trimmed)
}
