package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
)

// goNames are what encoding/json and mime/multipart put in their messages
// and users must never see.
var goNames = []string{"server.", "Go struct", "Go value", "json:", "wire.", "PublishRequest", "SSHKeyRequest", "int64", "*string", "multipart:", "NextPart"}

// Wrong-typed JSON on every JSON route is answered 400 with a message that
// names the JSON field and the type it must have, in JSON's terms.
func TestWrongTypedJSONIsExplainedInJSONTerms(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	wrongForString := map[string]string{"1": "a number", "true": "true or false", "[]": "an array", `{"a":1}`: "an object"}
	wrongForNumber := map[string]string{`"1700000000"`: "a string", "1.5": "the number 1.5", "1e30": "the number 1e30", "true": "true or false", "[1]": "an array", "{}": "an object"}
	routes := map[string][]string{
		"/api/publish":        {"content", "name", "description"},
		"/api/publish-signed": {"content", "name", "description", "nonce", "fingerprint", "signature"},
		"/api/ssh-keys":       {"public_key", "name"},
	}
	type probe struct{ body, want string }
	for path, fields := range routes {
		var probes []probe
		for _, f := range fields {
			for value, got := range wrongForString {
				probes = append(probes, probe{`{"` + f + `":` + value + `}`, "field " + f + " must be a string, not " + got})
			}
		}
		if path == "/api/publish-signed" {
			for value, got := range wrongForNumber {
				probes = append(probes, probe{`{"timestamp":` + value + `}`, "field timestamp must be a whole number, not " + got})
			}
		}
		for body, got := range map[string]string{`[]`: "an array", `"x"`: "a string", `42`: "a number", `true`: "true or false"} {
			probes = append(probes, probe{body, "request body must be a JSON object, not " + got})
		}
		probes = append(probes,
			probe{`{"content":`, "request body is not valid JSON"},
			probe{`{"content": x}`, "request body is not valid JSON"},
			probe{`{"content":"a"} trailing`, "after the JSON object"},
		)
		for _, p := range probes {
			resp := env.API.Post(path, "application/json", []byte(p.body), alice.Bearer())
			body := resp.JSON(t)
			msg, _ := body["error"].(string)
			if resp.Status != http.StatusBadRequest || !strings.Contains(msg, p.want) {
				t.Errorf("POST %s %s: %d %q, want 400 saying %q", path, p.body, resp.Status, msg, p.want)
			}
			wantNoGoNames(t, "POST "+path+" "+p.body, msg)
		}
	}

	// A malformed multipart body is described without mime/multipart's names.
	resp := env.API.Post("/api/publish", "multipart/form-data; boundary=xyz", []byte("--xyz\r\nno headers end here"), alice.Bearer())
	msg, _ := resp.JSON(t)["error"].(string)
	if resp.Status != http.StatusBadRequest || !strings.Contains(msg, "multipart body is malformed") {
		t.Errorf("malformed multipart: %d %q, want 400", resp.Status, msg)
	}
	wantNoGoNames(t, "malformed multipart", msg)
}

func wantNoGoNames(t *testing.T, what, msg string) {
	t.Helper()
	for _, name := range goNames {
		if strings.Contains(msg, name) {
			t.Errorf("%s: the message %q shows %q", what, msg, name)
		}
	}
}
