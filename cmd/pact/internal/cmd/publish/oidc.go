package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
)

// Trusted publishing from CI (docs/protocol.md, Trusted publishing): pact
// publish finds the job's OpenID Connect ID token, exchanges it for a
// short publish token and publishes with that.

// maxIDTokenAnswer bounds the answer of GitHub's ID token endpoint.
const maxIDTokenAnswer = 64 << 10

// ciIDTokenSource says where this job's ID token comes from: "github"
// (ACTIONS_ID_TOKEN_REQUEST_URL and _TOKEN, set by GitHub Actions for jobs
// with permissions: id-token: write), "gitlab" (PACT_ID_TOKEN, set by
// id_tokens: in .gitlab-ci.yml), or "" outside CI.
func ciIDTokenSource(s *cmdutil.Settings) string {
	switch {
	case s.Env("ACTIONS_ID_TOKEN_REQUEST_URL") != "" && s.Env("ACTIONS_ID_TOKEN_REQUEST_TOKEN") != "":
		return "github"
	case s.Env("PACT_ID_TOKEN") != "":
		return "gitlab"
	}
	return ""
}

// ciIDToken gets the job's ID token for audience, the registry's base URL.
func ciIDToken(ctx context.Context, s *cmdutil.Settings, audience string) (string, error) {
	switch ciIDTokenSource(s) {
	case "github":
		return githubIDToken(ctx, s.Env("ACTIONS_ID_TOKEN_REQUEST_URL"), s.Env("ACTIONS_ID_TOKEN_REQUEST_TOKEN"), audience)
	case "gitlab":
		return strings.TrimSpace(s.Env("PACT_ID_TOKEN")), nil
	}
	return "", errors.New("--oidc: no CI ID token found: in GitHub Actions give the job `permissions: id-token: write`; " +
		"in GitLab CI set PACT_ID_TOKEN with `id_tokens:` (aud: the registry's address)")
}

// githubIDToken asks GitHub Actions' token endpoint for an ID token:
// GET $ACTIONS_ID_TOKEN_REQUEST_URL&audience=... with the request token.
func githubIDToken(ctx context.Context, requestURL, requestToken, audience string) (string, error) {
	u, err := url.Parse(requestURL)
	if err != nil {
		return "", errors.New("ACTIONS_ID_TOKEN_REQUEST_URL is not a URL")
	}
	q := u.Query()
	q.Set("audience", audience)
	u.RawQuery = q.Encode()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "bearer "+requestToken)
	req.Header.Set("Accept", "application/json")
	// The request token goes to the endpoint's own origin only.
	resp, err := (&http.Client{CheckRedirect: client.CheckSameOrigin}).Do(req)
	if err != nil {
		return "", fmt.Errorf("GitHub's ID token endpoint: %v", errors.Unwrap(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxIDTokenAnswer))
	if err != nil {
		return "", fmt.Errorf("GitHub's ID token endpoint: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GitHub's ID token endpoint answered %s; does the job have `permissions: id-token: write`?", resp.Status)
	}
	var out struct {
		Value string `json:"value"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.Value == "" {
		return "", errors.New("GitHub's ID token endpoint answered no token")
	}
	return out.Value, nil
}

// exchangedClient exchanges the job's ID token and returns a client with
// the publish token it got. It names owner, the owner of what it
// publishes when --owner or --name OWNER/PACK says it ("" otherwise), so
// that only that account's trusted publishers are considered.
func exchangedClient(ctx context.Context, f *cmdutil.Factory, ios *iostreams.IOStreams, host, owner string) (*client.Client, error) {
	anon, err := f.NewClient(host, "")
	if err != nil {
		return nil, err
	}
	// The audience is the registry's base URL, as its --base-url says.
	idToken, err := ciIDToken(ctx, f.Settings(), strings.TrimRight(anon.BaseURL(), "/"))
	if err != nil {
		return nil, err
	}
	ex, err := anon.ExchangeIDToken(ctx, idToken, owner)
	if err != nil {
		return nil, fmt.Errorf("trusted publishing: %w", err)
	}
	ios.Info("Trusted publishing: a publish token for %s, valid until %s", strings.Join(ex.Packages, ", "), text.FormatTime(ex.ExpiresAt))
	return f.NewClient(host, ex.Token)
}
