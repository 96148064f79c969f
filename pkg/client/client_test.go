package client_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/client"
	"github.com/pact-registry/pact/pkg/sshsign"
)

var userCounter atomic.Int64

// newAccount makes a fresh account on the shared pactd and returns a client
// authenticated as it, and its username.
func newAccount(t *testing.T) (*client.Client, string) {
	t.Helper()
	username := fmt.Sprintf("user%d", userCounter.Add(1))
	token, err := client.SharedPactd().CreateUserWithToken(username)
	if err != nil {
		t.Fatal(err)
	}
	return newClient(t, token), username
}

func newClient(t *testing.T, token string) *client.Client {
	t.Helper()
	c, err := client.New(client.SharedPactd().URL, client.WithToken(token), client.WithVersion("test"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// packDoc is a pack document with the given pack fields.
func packDoc(fields string) []byte {
	return []byte("# A pack\n\nSome prose.\n\n```yaml pact:pack\n" + fields + "\n```\n")
}

func hexSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func wantStatus(t *testing.T, err error, status int) *client.APIError {
	t.Helper()
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error = %v (%T), want an *APIError with status %d", err, err, status)
	}
	if apiErr.StatusCode != status {
		t.Fatalf("status = %d (%s), want %d", apiErr.StatusCode, apiErr.Message, status)
	}
	if apiErr.Message == "" {
		t.Fatalf("APIError %d has no message", status)
	}
	return apiErr
}

func TestMeReturnsTheTokensAccount(t *testing.T) {
	t.Parallel()
	c, username := newAccount(t)
	user, err := c.Me(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if user.Username != username || user.Email != username+"@example.com" || user.ID == 0 || user.CreatedAt.IsZero() {
		t.Errorf("Me = %+v, want username %s with its email, an id and a creation time", user, username)
	}
}

func TestAPIErrorNeverShowsTheToken(t *testing.T) {
	t.Parallel()
	const badToken = "pact_0000000000000000000000000000000000000000000"
	c := newClient(t, badToken)
	_, err := c.Me(context.Background())
	apiErr := wantStatus(t, err, http.StatusUnauthorized)
	if !client.IsUnauthorized(err) {
		t.Error("IsUnauthorized = false for a 401")
	}
	if strings.Contains(err.Error(), badToken) || strings.Contains(apiErr.Message, badToken) {
		t.Errorf("error %q shows the token", err)
	}
}

func TestPublishGetAndRaw(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, owner := newAccount(t)
	doc := packDoc("name: Hello World\nversion: 1.0.0\nscheme: chat\ndescription: Says hello")

	first, err := c.Publish(ctx, client.PublishRequest{Content: doc})
	if err != nil {
		t.Fatal(err)
	}
	p := first.Package
	base := client.SharedPactd().URL
	if !first.Created || p.OwnerSlug != owner || p.PackSlug != "hello-world" || p.Version != "1.0.0" || p.Scheme != "chat" || p.Description != "Says hello" {
		t.Errorf("published %+v (created %v)", p, first.Created)
	}
	if p.URL != base+"/"+owner+"/hello-world" || p.RawURL != base+"/raw/"+owner+"/hello-world.pact.md" {
		t.Errorf("url %q raw_url %q", p.URL, p.RawURL)
	}
	if p.InstallCommand != "curl -fsSL "+p.RawURL+" -o hello-world.pact.md" || p.SHA256 != hexSHA256(doc) {
		t.Errorf("install_command %q sha256 %q", p.InstallCommand, p.SHA256)
	}

	again, err := c.Publish(ctx, client.PublishRequest{Content: doc})
	if err != nil {
		t.Fatalf("identical re-publish: %v", err)
	}
	if again.Created || again.Package.ID != p.ID {
		t.Errorf("identical re-publish: created %v id %d, want false and %d", again.Created, again.Package.ID, p.ID)
	}

	changed := packDoc("name: Hello World\nversion: 1.0.0\ndescription: Says hello differently")
	_, err = c.Publish(ctx, client.PublishRequest{Content: changed})
	wantStatus(t, err, http.StatusConflict)

	second := packDoc("name: Hello World\nversion: 1.1.0\nscheme: chat")
	if _, err := c.Publish(ctx, client.PublishRequest{Content: second}); err != nil {
		t.Fatal(err)
	}

	detail, err := c.GetPackage(ctx, owner, "hello-world")
	if err != nil {
		t.Fatal(err)
	}
	if detail.Package.Version != "1.1.0" || len(detail.Versions) != 2 || detail.Versions[0].Version != "1.1.0" {
		t.Fatalf("detail = %+v, want 1.1.0 latest, two versions newest first", detail)
	}
	v1 := detail.FindVersion("1.0.0")
	if v1 == nil || v1.SHA256 != hexSHA256(doc) || v1.Size != int64(len(doc)) || v1.Signature != nil {
		t.Errorf("version 1.0.0 = %+v", v1)
	}

	for _, tc := range []struct {
		name, version string
		want          []byte
	}{
		{"latest", "", second},
		{"pinned", "1.0.0", doc},
	} {
		t.Run(tc.name, func(t *testing.T) {
			content, sum, err := c.Raw(ctx, owner, "hello-world", tc.version)
			if err != nil {
				t.Fatal(err)
			}
			if string(content) != string(tc.want) || sum != hexSHA256(tc.want) {
				t.Errorf("Raw = %q with sha %s, want the published bytes and their digest", content, sum)
			}
		})
	}
}

func TestPublishDerivesTheNameFromTheFileName(t *testing.T) {
	t.Parallel()
	c, owner := newAccount(t)
	res, err := c.Publish(context.Background(), client.PublishRequest{
		Content: packDoc("version: 0.1.0"), FileName: "Code Review.pact.md", Description: "from a file",
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Package.FullName() != owner+"/code-review" || res.Package.Description != "from a file" {
		t.Errorf("published %s (%q), want %s/code-review with the description", res.Package.FullName(), res.Package.Description, owner)
	}
}

func TestPublishRejections(t *testing.T) {
	t.Parallel()
	c, _ := newAccount(t)
	tests := []struct {
		name   string
		req    client.PublishRequest
		status int
	}{
		{"no pack block", client.PublishRequest{Content: []byte("# just prose\n")}, http.StatusBadRequest},
		{"no version", client.PublishRequest{Content: packDoc("name: x")}, http.StatusBadRequest},
		{"not UTF-8", client.PublishRequest{Content: append(packDoc("name: x\nversion: 1.0.0"), 0xff, 0xfe)}, http.StatusBadRequest},
		{"over the size limit", client.PublishRequest{Content: append(packDoc("name: big\nversion: 1.0.0"), strings.Repeat("x", 1<<20)...)}, http.StatusRequestEntityTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Publish(context.Background(), tc.req)
			wantStatus(t, err, tc.status)
		})
	}
}

func TestPublishWithoutTokenIsUnauthorized(t *testing.T) {
	t.Parallel()
	c := newClient(t, "")
	_, err := c.Publish(context.Background(), client.PublishRequest{Content: packDoc("name: x\nversion: 1.0.0")})
	wantStatus(t, err, http.StatusUnauthorized)
}

func TestListPackagesPagesAndFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, owner := newAccount(t)
	for i, fields := range []string{
		"name: alpha\nversion: 1.0.0\nscheme: chat\ndescription: first of three",
		"name: beta\nversion: 1.0.0\nscheme: tool\ndescription: second of three",
		"name: gamma\nversion: 1.0.0\nscheme: chat\ndescription: third of three",
	} {
		if _, err := c.Publish(ctx, client.PublishRequest{Content: packDoc(fields)}); err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
	}

	var names []string
	opts := client.ListOptions{Owner: owner, Limit: 2}
	pages := 0
	for {
		page, err := c.ListPackages(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, p := range page.Packages {
			names = append(names, p.PackSlug)
		}
		if page.NextCursor == "" {
			break
		}
		opts.Cursor = page.NextCursor
	}
	if got := strings.Join(names, ","); got != "gamma,beta,alpha" || pages != 2 {
		t.Errorf("paged list = %s in %d pages, want gamma,beta,alpha (newest first) in 2", got, pages)
	}

	filters := []struct {
		name string
		opts client.ListOptions
		want string
	}{
		{"scheme", client.ListOptions{Owner: owner, Scheme: "chat"}, "gamma,alpha"},
		{"query", client.ListOptions{Owner: owner, Query: "second"}, "beta"},
		{"unknown owner", client.ListOptions{Owner: "nobody-here"}, ""},
	}
	for _, tc := range filters {
		t.Run(tc.name, func(t *testing.T) {
			page, err := c.ListPackages(ctx, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range page.Packages {
				got = append(got, p.PackSlug)
			}
			if strings.Join(got, ",") != tc.want || page.NextCursor != "" {
				t.Errorf("list = %v (next %q), want %s", got, page.NextCursor, tc.want)
			}
		})
	}

	for _, bad := range []client.ListOptions{{Limit: 101}, {Limit: -1}, {Cursor: "not-a-cursor"}} {
		_, err := c.ListPackages(ctx, bad)
		wantStatus(t, err, http.StatusBadRequest)
	}
}

func TestNotFound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, owner := newAccount(t)
	if _, err := c.Publish(ctx, client.PublishRequest{Content: packDoc("name: here\nversion: 1.0.0")}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call func() error
	}{
		{"package", func() error { _, err := c.GetPackage(ctx, owner, "missing"); return err }},
		{"raw latest", func() error { _, _, err := c.Raw(ctx, owner, "missing", ""); return err }},
		{"raw version", func() error { _, _, err := c.Raw(ctx, owner, "here", "9.9.9"); return err }},
		{"key", func() error { return c.DeleteKey(ctx, 999999) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			wantStatus(t, err, http.StatusNotFound)
			if !client.IsNotFound(err) {
				t.Error("IsNotFound = false")
			}
		})
	}
}

func TestKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, owner := newAccount(t)
	_, pubPath := sshtest.GenerateKey(t, t.TempDir(), "ed25519", 0)
	line := sshtest.PublicKeyLine(t, pubPath)

	key, err := c.AddKey(ctx, line, "")
	if err != nil {
		t.Fatal(err)
	}
	if key.ID == 0 || key.Name != "pact-test-ed25519" || key.Type != "ssh-ed25519" || key.Fingerprint != sshtest.KeygenFingerprint(t, pubPath) || key.LastUsedAt != nil {
		t.Errorf("added key = %+v", key)
	}
	if !strings.HasPrefix(line, key.PublicKey+" ") {
		t.Errorf("public_key %q is not the line %q without comment", key.PublicKey, line)
	}

	_, err = c.AddKey(ctx, line, "again")
	wantStatus(t, err, http.StatusConflict)
	_, err = c.AddKey(ctx, "ssh-dss AAAA nope", "")
	wantStatus(t, err, http.StatusBadRequest)

	keys, err := c.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0].ID != key.ID {
		t.Fatalf("ListKeys = %+v, want the added key", keys)
	}
	authorized, err := c.OwnerKeys(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(authorized, key.PublicKey) {
		t.Errorf("/%s.keys = %q, want the key's line", owner, authorized)
	}

	if err := c.DeleteKey(ctx, key.ID); err != nil {
		t.Fatal(err)
	}
	keys, err = c.ListKeys(ctx)
	if err != nil || len(keys) != 0 {
		t.Errorf("after delete: keys %v, err %v", keys, err)
	}
	wantStatus(t, c.DeleteKey(ctx, key.ID), http.StatusNotFound)
}

func TestPublishSigned(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, owner := newAccount(t)
	privPath, pubPath := sshtest.GenerateKey(t, t.TempDir(), "ed25519", 0)
	key, err := c.AddKey(ctx, sshtest.PublicKeyLine(t, pubPath), "signing")
	if err != nil {
		t.Fatal(err)
	}
	pemBytes, err := os.ReadFile(privPath)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(pemBytes)
	if err != nil {
		t.Fatal(err)
	}
	var signed [][]byte
	sign := func(_ context.Context, msg []byte) (string, error) {
		signed = append(signed, msg)
		return sshsign.Sign(signer, msg)
	}

	// No token: the signature alone authenticates.
	anonymous := newClient(t, "")
	doc := packDoc("name: signed\nversion: 2.0.0")
	res, err := anonymous.PublishSigned(ctx, client.SignedPublishRequest{
		Content: doc, Description: "signed by ssh", Fingerprint: key.Fingerprint, Sign: sign,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Auth != "ssh-signature" || !res.Created || res.Package.FullName() != owner+"/signed" || res.Package.Description != "signed by ssh" {
		t.Errorf("signed publish = %+v", res)
	}

	detail, err := c.GetPackage(ctx, owner, "signed")
	if err != nil {
		t.Fatal(err)
	}
	sig := detail.Versions[0].Signature
	if sig == nil || sig.Fingerprint != key.Fingerprint || len(signed) != 1 {
		t.Fatalf("provenance = %+v after %d signatures", sig, len(signed))
	}
	// The stored provenance verifies with ssh-keygen over the message signed.
	if err := sshtest.VerifyWithKeygen(t, sshtest.PublicKeyLine(t, pubPath), signed[0], sig.Signature, "pact"); err != nil {
		t.Error(err)
	}

	// A token sent along on the signed route is ignored, never refused.
	res, err = c.PublishSigned(ctx, client.SignedPublishRequest{Content: doc, Description: "signed by ssh", Fingerprint: key.Fingerprint, Sign: sign})
	if err != nil || res.Created {
		t.Errorf("identical signed re-publish: %+v, %v; want created false", res, err)
	}

	// An unregistered key is refused with 400.
	otherPriv, _ := sshtest.GenerateKey(t, t.TempDir(), "ed25519", 0)
	otherBytes, _ := os.ReadFile(otherPriv)
	other, err := ssh.ParsePrivateKey(otherBytes)
	if err != nil {
		t.Fatal(err)
	}
	_, err = anonymous.PublishSigned(ctx, client.SignedPublishRequest{
		Content: doc, Fingerprint: sshsign.Fingerprint(other.PublicKey()),
		Sign: func(_ context.Context, msg []byte) (string, error) { return sshsign.Sign(other, msg) },
	})
	wantStatus(t, err, http.StatusBadRequest)
}

func TestOpenAPIAndProbes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t, "")
	doc, err := c.OpenAPI(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Version string `json:"version"`
		} `json:"info"`
	}
	if err := json.Unmarshal(doc, &spec); err != nil || spec.OpenAPI != "3.0.3" || spec.Info.Version != "0.2.4" {
		t.Errorf("openapi.json: %+v, %v", spec, err)
	}
	if err := c.Health(ctx); err != nil {
		t.Errorf("Health: %v", err)
	}
	if err := c.Ready(ctx); err != nil {
		t.Errorf("Ready: %v", err)
	}
}

func TestNewRefusesBadAddresses(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"", "localhost:8080", "ftp://example.com", "http://", "http://x/?q=1", "::"} {
		t.Run(addr, func(t *testing.T) {
			if _, err := client.New(addr); err == nil {
				t.Errorf("New(%q) succeeded", addr)
			}
		})
	}
	c, err := client.New("http://example.com/registry/")
	if err != nil || c.BaseURL() != "http://example.com/registry" {
		t.Errorf("New with a path prefix: %v, %v", c, err)
	}
}

// TestAHostThatIsNotARegistrySaysSo: a web server that answers pact's API
// routes with its own pages is named as no registry, never taken for a
// registry that lacks the package.
func TestAHostThatIsNotARegistrySaysSo(t *testing.T) {
	t.Parallel()
	website := func(status int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(status)
			io.WriteString(w, "<!doctype html><title>Welcome</title><p>A web site.</p>")
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	ctx := context.Background()
	tests := []struct {
		name   string
		status int
		call   func(c *client.Client) error
		want   string
	}{
		{"a 404 page for a package", http.StatusNotFound, func(c *client.Client) error {
			_, err := c.GetPackage(ctx, "alice", "widget")
			return err
		}, "GET /api/packages/alice/widget with 404 Not Found (text/html)"},
		{"a 404 page for a publish", http.StatusNotFound, func(c *client.Client) error {
			_, err := c.Publish(ctx, client.PublishRequest{Content: packDoc("name: widget\nversion: 1.0.0")})
			return err
		}, "POST /api/publish with 404 Not Found (text/html)"},
		{"a page for every address", http.StatusOK, func(c *client.Client) error {
			_, err := c.ListPackages(ctx, client.ListOptions{})
			return err
		}, "GET /api/packages with 200 OK (text/html)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			address := website(tc.status)
			c, err := client.New(address, client.WithToken("pact_x"))
			if err != nil {
				t.Fatal(err)
			}
			err = tc.call(c)
			var notRegistry *client.NotRegistryError
			if !errors.As(err, &notRegistry) {
				t.Fatalf("error = %v (%T), want a *NotRegistryError", err, err)
			}
			host := strings.TrimPrefix(address, "http://")
			if want := host + " does not look like a pact registry: it answered " + tc.want + ", not pact's JSON"; err.Error() != want {
				t.Errorf("Error() = %q\nwant       %q", err.Error(), want)
			}
			if client.IsNotFound(err) {
				t.Error("IsNotFound = true for a host that is no registry")
			}
		})
	}

	// A proxy's own page for a failure of the registry behind it is still
	// the registry's failure.
	c, err := client.New(website(http.StatusBadGateway), client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ListPackages(ctx, client.ListOptions{})
	wantStatus(t, err, http.StatusBadGateway)
}
