package server_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
)

func TestUnknownAndWrongMethodRoutesAnswerJSON(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		cases := []struct {
			method, path string
			status       int
		}{
			{http.MethodGet, "/api/nope", http.StatusNotFound},
			{http.MethodGet, "/api", http.StatusNotFound},
			{http.MethodPost, "/api/nope/deeper", http.StatusNotFound},
			{http.MethodGet, "/api/publish", http.StatusMethodNotAllowed},
			{http.MethodDelete, "/api/packages", http.StatusMethodNotAllowed},
			{http.MethodPost, "/api/me", http.StatusMethodNotAllowed},
			{http.MethodPut, "/api/ssh-keys", http.StatusMethodNotAllowed},
			{http.MethodPost, "/raw/alice/x.pact.md", http.StatusMethodNotAllowed},
		}
		for _, tc := range cases {
			req := mustRequest(t, tc.method, env.URL+tc.path)
			req.Header.Set("Authorization", "Bearer "+alice.Token)
			resp := env.API.Do(req)
			var body map[string]any
			if err := json.Unmarshal(resp.Body, &body); err != nil {
				t.Errorf("%s %s: body is not JSON: %q", tc.method, tc.path, resp.Body)
				continue
			}
			wantError(t, resp.Status, body, tc.status, "")
		}
	})
}

func TestOpenAPIAndHealth(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	resp := env.API.Get("/openapi.json")
	wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Version string `json:"version"`
		} `json:"info"`
	}
	resp.Decode(t, &doc)
	if doc.OpenAPI != "3.0.3" || doc.Info.Version != "0.2.4" {
		t.Errorf("openapi %q version %q, want 3.0.3 and 0.2.4", doc.OpenAPI, doc.Info.Version)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		r := env.API.Get(path)
		wantStatus(t, r.Status, http.StatusOK, r.Body)
	}
}
