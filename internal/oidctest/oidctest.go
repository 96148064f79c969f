// Package oidctest runs a real OpenID Connect provider (cmd/fakeidp) as a
// separate process for the tests of trusted publishing, and builds ID token
// claims of the exact shapes GitHub Actions and GitLab CI document.
package oidctest

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/storetest"
)

// Provider is a running fakeidp.
type Provider struct {
	Issuer string
	// RequestToken is the bearer token its /actions/token endpoint wants,
	// as ACTIONS_ID_TOKEN_REQUEST_TOKEN.
	RequestToken string
	cmd          *exec.Cmd
	t            testing.TB
}

// Start builds and runs fakeidp on a loopback port until the test ends.
func Start(t testing.TB) *Provider {
	t.Helper()
	p, err := Run()
	if err != nil {
		t.Fatal(err)
	}
	p.t = t
	t.Cleanup(p.Stop)
	return p
}

// Run starts fakeidp, built once per go test run
// (storetest.BuildProgram), for callers without a testing.TB (testscript
// set-up); they must call Stop.
func Run() (*Provider, error) {
	bin, err := storetest.BuildProgram("github.com/pact-registry/pact/internal/oidctest/cmd/fakeidp")
	if err != nil {
		return nil, err
	}
	p := &Provider{RequestToken: "request-token-for-tests"}
	p.cmd = exec.Command(bin, "-request-token", p.RequestToken)
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting fakeidp: %v", err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ISSUER ") {
		p.Stop()
		return nil, fmt.Errorf("fakeidp printed %q, %v", line, err)
	}
	p.Issuer = strings.TrimSpace(strings.TrimPrefix(line, "ISSUER "))
	return p, nil
}

// Stop ends the provider: its issuer is down from then on.
func (p *Provider) Stop() {
	if p.cmd.Process != nil && p.cmd.ProcessState == nil {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
	}
}

// Mint returns an ID token with claims, signed with alg ("RS256", "ES256",
// or "none" for an unsigned one); unknownKey signs with a key the JWKS
// does not hold.
func (p *Provider) Mint(alg string, unknownKey bool, claims map[string]any) string {
	p.t.Helper()
	body, _ := json.Marshal(map[string]any{"alg": alg, "unknown_key": unknownKey, "claims": claims})
	return string(p.post("/mint", body))
}

// MintUnknownKey returns an ID token with claims signed with alg by a new
// key of key id kid, which the JWKS does not hold.
func (p *Provider) MintUnknownKey(alg, kid string, claims map[string]any) string {
	p.t.Helper()
	body, _ := json.Marshal(map[string]any{"alg": alg, "unknown_key": true, "kid": kid, "claims": claims})
	return string(p.post("/mint", body))
}

// JWKSHits is how many times the provider's JWKS was fetched.
func (p *Provider) JWKSHits() int {
	p.t.Helper()
	resp, err := http.Get(p.Issuer + "/jwks/hits")
	if err != nil {
		p.t.Fatalf("fakeidp /jwks/hits: %v", err)
	}
	defer resp.Body.Close()
	var out struct {
		Hits int `json:"hits"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		p.t.Fatalf("fakeidp /jwks/hits: %v", err)
	}
	return out.Hits
}

// Rotate replaces the provider's keys by new ones with new key ids.
func (p *Provider) Rotate() { p.t.Helper(); p.post("/rotate", nil) }

// SetActionsClaims sets the claims /actions/token mints (its aud is the
// audience asked for).
func (p *Provider) SetActionsClaims(claims map[string]any) {
	p.t.Helper()
	body, _ := json.Marshal(claims)
	p.post("/actions/claims", body)
}

// ActionsTokenURL is ACTIONS_ID_TOKEN_REQUEST_URL as GitHub sets it: a
// URL with a query already, to which the client adds &audience=.
func (p *Provider) ActionsTokenURL() string { return p.Issuer + "/actions/token?api-version=2.0" }

func (p *Provider) post(path string, body []byte) []byte {
	p.t.Helper()
	resp, err := http.Post(p.Issuer+path, "application/json", bytes.NewReader(body))
	if err != nil {
		p.t.Fatalf("fakeidp %s: %v", path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		p.t.Fatalf("fakeidp %s: %s: %s", path, resp.Status, out)
	}
	return out
}

// GitHubClaims are the claims of a GitHub Actions ID token of a run of
// workflow (a file under .github/workflows) in repo ("owner/name") on ref,
// for audience, valid from now for five minutes, as GitHub documents them.
func GitHubClaims(issuer, audience, repo, workflow, ref string, now time.Time) map[string]any {
	owner, _, _ := strings.Cut(repo, "/")
	workflowRef := fmt.Sprintf("%s/.github/workflows/%s@%s", repo, workflow, ref)
	return map[string]any{
		"iss": issuer, "aud": audience, "sub": "repo:" + repo + ":ref:" + ref,
		"jti": newJTI(),
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
		"ref": ref, "ref_type": "branch", "ref_protected": "true",
		"sha":        "3f2a9c1e5b7d4a6f8e0c2b4d6f8a0c2e4b6d8f0a",
		"repository": repo, "repository_id": "123456", "repository_owner": owner, "repository_owner_id": "654321",
		"repository_visibility": "public",
		"run_id":                "4242424242", "run_number": "17", "run_attempt": "1",
		"actor": owner, "actor_id": "654321", "event_name": "push",
		"workflow":           "Release",
		"workflow_ref":       workflowRef,
		"workflow_sha":       "3f2a9c1e5b7d4a6f8e0c2b4d6f8a0c2e4b6d8f0a",
		"job_workflow_ref":   workflowRef,
		"job_workflow_sha":   "3f2a9c1e5b7d4a6f8e0c2b4d6f8a0c2e4b6d8f0a",
		"runner_environment": "github-hosted",
	}
}

// GitLabClaims are the claims of a GitLab CI ID token (id_tokens: with
// aud) of a pipeline of project ("group/name") on ref, as GitLab documents
// them.
func GitLabClaims(issuer, audience, project, ref string, now time.Time) map[string]any {
	namespace, _, _ := strings.Cut(project, "/")
	return map[string]any{
		"iss": issuer, "aud": audience,
		"sub": "project_path:" + project + ":ref_type:branch:ref:" + ref,
		"jti": newJTI(),
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
		"namespace_id": "72", "namespace_path": namespace, "project_id": "20", "project_path": project,
		"user_id": "5", "user_login": namespace, "user_email": namespace + "@example.com",
		"pipeline_id": "1212", "pipeline_source": "push", "job_id": "3434",
		"ref": ref, "ref_type": "branch", "ref_path": "refs/heads/" + ref, "ref_protected": "true",
		"sha":         "9d1e7a3c5b2f4e6a8c0d2f4b6a8c0e2d4f6b8a0c",
		"environment": "production", "environment_protected": "true", "deployment_tier": "production",
		"runner_id": "1", "runner_environment": "gitlab-hosted",
		"ci_config_ref_uri":  "gitlab.com/" + project + "//.gitlab-ci.yml@refs/heads/" + ref,
		"ci_config_sha":      "9d1e7a3c5b2f4e6a8c0d2f4b6a8c0e2d4f6b8a0c",
		"project_visibility": "public",
	}
}

// newJTI is a fresh jti, as every real ID token has: tests that need two
// tokens with one jti copy it.
func newJTI() string { return "jti-" + rand.Text() }
