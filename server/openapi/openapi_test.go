package openapi_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/pact-registry/pact/internal/openapicheck"
	"github.com/pact-registry/pact/server/openapi"
)

func load(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapicheck.Load()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestDocumentIdentifiesItself(t *testing.T) {
	doc := load(t)
	if doc.OpenAPI != "3.0.3" {
		t.Errorf("openapi = %q, want 3.0.3", doc.OpenAPI)
	}
	if doc.Info.Title != "pact" {
		t.Errorf("info.title = %q, want pact", doc.Info.Title)
	}
	if doc.Info.Version != "0.2.4" {
		t.Errorf("info.version = %q, want 0.2.4", doc.Info.Version)
	}
	if strings.TrimSpace(doc.Info.Description) == "" {
		t.Error("info.description is empty")
	}
}

// JSON is what GET /openapi.json serves, so it must be plain JSON (not YAML,
// which the loader would also accept).
func TestServedBytesAreJSON(t *testing.T) {
	if !json.Valid(openapi.JSON) {
		t.Fatal("openapi.json is not valid JSON")
	}
}

// The routes of the interface (docs/protocol.md, Routes), each with the
// statuses a client must be able to rely on.
func TestEveryRouteOfTheInterfaceIsDescribed(t *testing.T) {
	doc := load(t)
	tests := []struct {
		method, path string
		statuses     []int
	}{
		{"GET", "/api/packages", []int{200, 400}},
		{"GET", "/api/packages/{owner}/{pack}", []int{200, 404}},
		{"GET", "/raw/{owner}/{pack}.pact.md", []int{200, 304, 404}},
		{"HEAD", "/raw/{owner}/{pack}.pact.md", []int{200, 304, 404}},
		{"GET", "/raw/{owner}/{pack}@{version}.pact.md", []int{200, 304, 307, 404}},
		{"HEAD", "/raw/{owner}/{pack}@{version}.pact.md", []int{200, 304, 307, 404}},
		{"POST", "/api/publish", []int{200, 400, 401, 403, 404, 409, 413, 415, 429}},
		{"POST", "/api/publish-signed", []int{200, 400, 403, 404, 409, 413, 415, 429}},
		{"GET", "/api/me", []int{200, 401}},
		{"GET", "/api/ssh-keys", []int{200, 401}},
		{"POST", "/api/ssh-keys", []int{200, 400, 401, 403, 409}},
		{"DELETE", "/api/ssh-keys/{id}", []int{200, 401, 403, 404}},
		{"GET", "/api/tokens", []int{200, 401, 403}},
		{"POST", "/api/tokens", []int{201, 400, 401, 403, 409, 413, 415}},
		{"DELETE", "/api/tokens/{id}", []int{200, 401, 403, 404}},
		{"GET", "/api/trusted-publishers", []int{200, 401, 403}},
		{"POST", "/api/trusted-publishers", []int{201, 400, 401, 403, 409, 413, 415}},
		{"DELETE", "/api/trusted-publishers/{id}", []int{200, 401, 403, 404}},
		{"POST", "/api/oidc/exchange", []int{200, 400, 401, 403, 413, 415, 503}},
		{"POST", "/api/login/device", []int{200, 400, 413, 415, 429, 503}},
		{"POST", "/api/login/device/token", []int{200, 400, 403, 409, 413, 415, 429}},
		{"POST", "/api/releases", []int{200, 400, 401, 403, 404, 409, 413, 415, 429}},
		{"GET", "/api/contracts/{owner}/{pack}/releases", []int{200, 400, 404}},
		{"HEAD", "/api/contracts/{owner}/{pack}/releases", []int{200, 400, 404}},
		{"GET", "/api/contracts/{owner}/{pack}/releases/{version}", []int{200, 404}},
		{"HEAD", "/api/contracts/{owner}/{pack}/releases/{version}", []int{200, 404}},
		{"POST", "/api/orgs", []int{201, 400, 401, 403, 409, 413, 415}},
		{"GET", "/api/orgs/{org}", []int{200, 404}},
		{"GET", "/api/orgs/{org}/members", []int{200, 404}},
		{"PUT", "/api/orgs/{org}/members/{username}", []int{200, 400, 401, 403, 404, 409}},
		{"DELETE", "/api/orgs/{org}/members/{username}", []int{200, 401, 403, 404, 409}},
		{"GET", "/{owner}.keys", []int{200}},
		{"GET", "/openapi.json", []int{200}},
		{"GET", "/healthz", []int{200}},
		{"GET", "/readyz", []int{200, 503}},
		{"GET", "/log/checkpoint", []int{200, 503}},
		{"HEAD", "/log/checkpoint", []int{200, 503}},
		{"GET", "/log/key", []int{200, 503}},
		{"GET", "/log/tile/{level}/{index}", []int{200, 307, 400, 404}},
		{"HEAD", "/log/tile/{level}/{index}", []int{200, 307, 400, 404}},
		{"GET", "/log/tile/entries/{index}", []int{200, 307, 400, 404}},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			item := doc.Paths.Value(tt.path)
			if item == nil {
				t.Fatalf("path %s is missing", tt.path)
			}
			op := item.GetOperation(tt.method)
			if op == nil {
				t.Fatalf("%s %s is missing", tt.method, tt.path)
			}
			for _, status := range tt.statuses {
				if op.Responses.Status(status) == nil {
					t.Errorf("status %d is not described", status)
				}
			}
		})
	}
}

func TestEveryOperationIsReadyForTheDocsPage(t *testing.T) {
	doc := load(t)
	forEachOperation(doc, func(method, path string, op *openapi3.Operation) {
		t.Run(method+" "+path, func(t *testing.T) {
			if op.OperationID == "" {
				t.Error("no operationId")
			}
			if op.Summary == "" {
				t.Error("no summary")
			}
			if op.Description == "" {
				t.Error("no description")
			}
			curl, _ := op.Extensions["x-curl"].(string)
			if !strings.Contains(curl, "curl ") || !strings.Contains(curl, "$PACT_HOST") {
				t.Errorf("x-curl = %q, want a curl command against $PACT_HOST", curl)
			}
		})
	})
}

// Both token headers are accepted on every token endpoint, /api/ssh-keys
// included; every other route needs no token (docs/protocol.md,
// Authentication).
func TestTokenRoutesAcceptBothTokenHeaders(t *testing.T) {
	doc := load(t)
	tokenRoutes := map[string]bool{
		"POST /api/publish":               true,
		"GET /api/me":                     true,
		"GET /api/ssh-keys":               true,
		"HEAD /api/me":                    true,
		"HEAD /api/ssh-keys":              true,
		"POST /api/ssh-keys":              true,
		"DELETE /api/ssh-keys/{id}":       true,
		"GET /api/tokens":                 true,
		"HEAD /api/tokens":                true,
		"POST /api/tokens":                true,
		"DELETE /api/tokens/{id}":         true,
		"POST /api/publish-signed":        false,
		"GET /api/packages":               false,
		"GET /raw/{owner}/{pack}.pact.md": false,

		// Yanking and deprecating.
		"POST /api/packages/{owner}/{pack}/versions/{version}/yank":   true,
		"POST /api/packages/{owner}/{pack}/versions/{version}/unyank": true,
		"POST /api/packages/{owner}/{pack}/deprecate":                 true,
		// A package's settings: its owner's, never a CI job's.
		"PATCH /api/packages/{owner}/{pack}": true,

		// Trusted publishing: the exchange is how a CI job gets a token.
		"GET /api/trusted-publishers":         true,
		"HEAD /api/trusted-publishers":        true,
		"POST /api/trusted-publishers":        true,
		"DELETE /api/trusted-publishers/{id}": true,
		"POST /api/oidc/exchange":             false,

		// Releases: registering needs the publish scope; reading is public.
		"POST /api/releases":                                   true,
		"GET /api/contracts/{owner}/{pack}/releases":           false,
		"GET /api/contracts/{owner}/{pack}/releases/{version}": false,
		// Organisations: reading is public.
		"POST /api/orgs":                            true,
		"GET /api/orgs":                             true,
		"HEAD /api/orgs":                            true,
		"GET /api/orgs/{org}":                       false,
		"HEAD /api/orgs/{org}":                      false,
		"GET /api/orgs/{org}/members":               false,
		"HEAD /api/orgs/{org}/members":              false,
		"PUT /api/orgs/{org}/members/{username}":    true,
		"DELETE /api/orgs/{org}/members/{username}": true,
		// Webhooks: every route needs the hooks scope.
		"GET /api/hooks":                                       true,
		"HEAD /api/hooks":                                      true,
		"POST /api/hooks":                                      true,
		"DELETE /api/hooks/{id}":                               true,
		"GET /api/hooks/{id}/deliveries":                       true,
		"HEAD /api/hooks/{id}/deliveries":                      true,
		"POST /api/hooks/{id}/deliveries/{delivery}/redeliver": true,
	}
	if len(doc.Security) != 0 {
		t.Errorf("the document has a global security requirement %v; public routes need none", doc.Security)
	}
	bothSchemes := openapi3.SecurityRequirements{{"bearerAuth": []string{}}, {"pactToken": []string{}}}
	seen := map[string]bool{}
	forEachOperation(doc, func(method, path string, op *openapi3.Operation) {
		route := method + " " + path
		needsToken := tokenRoutes[route]
		seen[route] = true
		t.Run(route, func(t *testing.T) {
			var security openapi3.SecurityRequirements
			if op.Security != nil {
				security = *op.Security
			}
			if !needsToken {
				if len(security) != 0 {
					t.Errorf("security = %v, want none", security)
				}
				return
			}
			if !equalJSON(security, bothSchemes) {
				t.Errorf("security = %v, want the alternatives bearerAuth or pactToken", security)
			}
			unauthorized := op.Responses.Status(401)
			if unauthorized == nil {
				t.Fatal("no 401 answer")
			}
			if h := unauthorized.Value.Headers["WWW-Authenticate"]; h == nil || !h.Value.Required {
				t.Error("the 401 answer does not require WWW-Authenticate")
			}
		})
	})
	for route := range tokenRoutes {
		if !seen[route] {
			t.Errorf("%s is not described", route)
		}
	}
	schemes := doc.Components.SecuritySchemes
	if s := schemes["bearerAuth"]; s == nil || s.Value.Type != "http" || s.Value.Scheme != "bearer" {
		t.Errorf("bearerAuth is not an http bearer scheme: %+v", s)
	}
	if s := schemes["pactToken"]; s == nil || s.Value.Type != "apiKey" || s.Value.In != "header" || s.Value.Name != "X-Pact-Token" {
		t.Errorf("pactToken is not the X-Pact-Token header: %+v", s)
	}
}

// Every body has a schema, in the media type the service sends: markdown for
// raw documents, plain text for /{owner}.keys, JSON (the Error object for
// every error) otherwise.
func TestEveryBodyHasASchemaOfTheRightMediaType(t *testing.T) {
	doc := load(t)
	errorSchema := doc.Components.Schemas["Error"]
	forEachOperation(doc, func(method, path string, op *openapi3.Operation) {
		t.Run(method+" "+path, func(t *testing.T) {
			if rb := op.RequestBody; rb != nil {
				for mt, media := range rb.Value.Content {
					if media.Schema == nil {
						t.Errorf("request body %s has no schema", mt)
					}
				}
			}
			for status, ref := range op.Responses.Map() {
				content := ref.Value.Content
				if method == "HEAD" {
					if len(content) != 0 {
						t.Errorf("%s: a HEAD answer has no body, yet content is described", status)
					}
					continue
				}
				if status == "304" || status == "307" {
					continue
				}
				if len(content) != 1 {
					t.Errorf("%s: want exactly one media type, got %v", status, slices.Sorted(maps.Keys(content)))
					continue
				}
				want := "application/json"
				switch {
				case status == "200" && strings.HasPrefix(path, "/raw/"):
					want = "text/markdown"
				case status == "200" && (path == "/{owner}.keys" || path == "/metrics" || path == "/log/checkpoint" || path == "/log/key" || path == "/log/proof/{index}" || path == "/log/policy"):
					want = "text/plain"
				case status == "200" && strings.HasPrefix(path, "/log/tile/"):
					want = "application/octet-stream"
				}
				media := content.Get(want)
				if media == nil {
					t.Errorf("%s: media type %v, want %s", status, slices.Sorted(maps.Keys(content)), want)
					continue
				}
				if media.Schema == nil {
					t.Errorf("%s: no schema", status)
					continue
				}
				if status[0] >= '4' && media.Schema.Value != errorSchema.Value {
					t.Errorf("%s: an error answer whose schema is not Error", status)
				}
			}
		})
	})
}

// Response objects must list every field they carry as required, so a
// server that drops one fails the tests; requests list what clients must send.
func TestRequiredListsAreComplete(t *testing.T) {
	doc := load(t)
	tests := []struct {
		schema   string
		required []string // nil: every property
	}{
		{"Package", nil},
		{"Version", nil},
		{"Signature", nil},
		{"Key", nil},
		{"User", nil},
		{"Error", []string{"error", "ok"}}, // code only on a device login's poll
		{"Ok", nil},
		{"PackageList", []string{"next_cursor", "ok", "packages"}}, // suggestions only when a search found little
		{"PackageDetail", nil},
		{"PublishResult", nil},
		{"SignedPublishResult", nil},
		{"PublishedVersion", nil},
		{"MeResult", nil},
		{"KeyList", nil},
		{"KeyResult", nil},
		{"PublishRequest", []string{"content"}},
		{"SignedPublishRequest", []string{"content", "fingerprint", "nonce", "signature", "timestamp"}},
		{"SSHKeyRequest", []string{"public_key"}},
		{"Token", nil},
		{"TokenList", nil},
		{"CreatedToken", nil},
		{"TokenRequest", []string{}},
		{"DeviceLogin", nil},
		{"DeviceLoginRequest", []string{}},
		{"DeviceTokenRequest", []string{"device_code"}},
	}
	for _, tt := range tests {
		t.Run(tt.schema, func(t *testing.T) {
			ref := doc.Components.Schemas[tt.schema]
			if ref == nil {
				t.Fatalf("components.schemas.%s is missing", tt.schema)
			}
			want := tt.required
			if want == nil {
				want = slices.Sorted(maps.Keys(ref.Value.Properties))
			}
			got := slices.Sorted(slices.Values(ref.Value.Required))
			if !slices.Equal(got, want) {
				t.Errorf("required = %v, want %v", got, want)
			}
			if ap := ref.Value.AdditionalProperties.Has; ap != nil && !*ap {
				t.Error("additionalProperties: false would refuse fields added later")
			}
		})
	}
}

// The nullable fields of the wire format accept null; the rest do not.
func TestNullableFields(t *testing.T) {
	doc := load(t)
	tests := []struct {
		schema, field string
		nullable      bool
	}{
		{"Version", "signature", true},
		{"Version", "log_index", true},
		{"PublishResult", "log_index", true},
		{"Key", "last_used_at", true},
		{"Token", "scopes", true},
		{"Token", "packages", true},
		{"Token", "expires_at", true},
		{"Token", "last_used_at", true},
		{"Token", "revoked_at", true},
		{"Token", "revoked", false},
		{"PackageList", "next_cursor", true},
		{"Package", "raw_url", false},
		{"Key", "created_at", false},
	}
	for _, tt := range tests {
		t.Run(tt.schema+"."+tt.field, func(t *testing.T) {
			prop := doc.Components.Schemas[tt.schema].Value.Properties[tt.field]
			if prop == nil {
				t.Fatalf("%s has no %s", tt.schema, tt.field)
			}
			if prop.Value.Nullable != tt.nullable {
				t.Errorf("nullable = %v, want %v", prop.Value.Nullable, tt.nullable)
			}
		})
	}
}

// The headers docs/protocol.md promises, with their exact values where fixed.
func TestResponseHeaders(t *testing.T) {
	doc := load(t)
	tests := []struct {
		name, method, path string
		status             int
		header             string
		value              string // "" when any value the schema allows will do
	}{
		{"latest raw is cached a minute", "GET", "/raw/{owner}/{pack}.pact.md", 200, "Cache-Control", "public, max-age=60"},
		{"pinned raw is immutable", "GET", "/raw/{owner}/{pack}@{version}.pact.md", 200, "Cache-Control", "public, max-age=31536000, immutable"},
		{"latest HEAD matches its GET", "HEAD", "/raw/{owner}/{pack}.pact.md", 200, "Cache-Control", "public, max-age=60"},
		{"pinned HEAD matches its GET", "HEAD", "/raw/{owner}/{pack}@{version}.pact.md", 200, "Cache-Control", "public, max-age=31536000, immutable"},
		{"the checkpoint is never cached", "GET", "/log/checkpoint", 200, "Cache-Control", "no-cache"},
		{"a full hash tile is immutable", "GET", "/log/tile/{level}/{index}", 200, "Cache-Control", "public, max-age=31536000, immutable"},
		{"a partial entry bundle is cached a minute", "GET", "/log/tile/entries/{index}", 200, "Cache-Control", "public, max-age=60"},
		{"latest raw has an ETag", "GET", "/raw/{owner}/{pack}.pact.md", 200, "ETag", `"` + strings.Repeat("ab", 32) + `"`},
		{"pinned raw has an ETag", "GET", "/raw/{owner}/{pack}@{version}.pact.md", 200, "ETag", `"` + strings.Repeat("0f", 32) + `"`},
		{"401 names the realm", "GET", "/api/me", 401, "WWW-Authenticate", `Bearer realm="pact"`},
		{"429 says when to retry", "POST", "/api/publish", 429, "Retry-After", ""},
		{"signed 429 says when to retry", "POST", "/api/publish-signed", 429, "Retry-After", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := doc.Paths.Value(tt.path).GetOperation(tt.method).Responses.Status(tt.status)
			if resp == nil {
				t.Fatalf("no %d answer", tt.status)
			}
			h := resp.Value.Headers[tt.header]
			if h == nil || !h.Value.Required {
				t.Fatalf("the %d answer does not require %s", tt.status, tt.header)
			}
			if tt.value != "" {
				if err := h.Value.Schema.Value.VisitJSON(tt.value); err != nil {
					t.Errorf("%s: %q is refused: %v", tt.header, tt.value, err)
				}
			}
		})
	}
	// A wrong Cache-Control is refused, so the harness can tell them apart:
	// the latest document is never cached for a year, and the pinned route
	// answers a version for a year or @latest for a minute, nothing else.
	latest := doc.Components.Headers["CacheControlLatest"].Value
	if err := latest.Schema.Value.VisitJSON("public, max-age=31536000, immutable"); err == nil {
		t.Error("the latest Cache-Control accepts the pinned value")
	}
	pinned := doc.Components.Headers["CacheControlPinned"].Value
	for _, v := range []string{"public, max-age=31536000, immutable", "public, max-age=60"} {
		if err := pinned.Schema.Value.VisitJSON(v); err != nil {
			t.Errorf("the pinned Cache-Control refuses %q: %v", v, err)
		}
	}
	if err := pinned.Schema.Value.VisitJSON("public, max-age=3600"); err == nil {
		t.Error("the pinned Cache-Control accepts any value")
	}
}

// The signed-publish rules a client needs to sign (docs/protocol.md, Signed
// publishing).
func TestSignedPublishDescribesTheSignature(t *testing.T) {
	doc := load(t)
	description := doc.Paths.Value("/api/publish-signed").Post.Description
	for _, phrase := range []string{
		"pact-publish-v1\n{timestamp}\n{nonce}\n{hex sha256 of content's UTF-8 bytes}\n{name}\n{description}",
		"each followed by `\\n`",
		"empty line",
		"ssh-keygen -Y sign -n pact",
		"namespace is **`pact`**",
		"ssh-keygen -lf key.pub",
		"`SHA256:`",
		"±300 s",
		"16–128 characters of `[A-Za-z0-9._-]`",
		"accepted once per key",
		"**400**",
	} {
		if !strings.Contains(description, phrase) {
			t.Errorf("the description does not say %q", phrase)
		}
	}
}

func forEachOperation(doc *openapi3.T, f func(method, path string, op *openapi3.Operation)) {
	for _, path := range doc.Paths.InMatchingOrder() {
		ops := doc.Paths.Value(path).Operations()
		for _, method := range slices.Sorted(maps.Keys(ops)) {
			f(method, path, ops[method])
		}
	}
}

func equalJSON(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(x) == string(y)
}
