package client_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/pact-registry/pact/internal/pactdtest"
	"github.com/pact-registry/pact/pkg/client"
)

// countingTransport counts the requests a client sends.
type countingTransport struct{ n atomic.Int64 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// TestVerifiedGetCostsTwoRequestsOnPactd measures, against the real pactd,
// what verification adds to a download (the GET of the package and of the
// raw document): with the tiles of an earlier run kept, two requests for a
// version published since (the checkpoint and the newest entry bundle),
// one for the same version again.
func TestVerifiedGetCostsTwoRequestsOnPactd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// A private pactd: the shared one's log grows with the other tests.
	srv, err := pactdtest.Start(client.PactdBin(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	token, err := srv.CreateUserWithToken("alice")
	if err != nil {
		t.Fatal(err)
	}
	counter := &countingTransport{}
	c, err := client.New(srv.URL, client.WithToken(token), client.WithHTTPClient(&http.Client{Transport: counter}))
	if err != nil {
		t.Fatal(err)
	}
	key, err := c.LogKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()

	// download is what pact get does; verified adds the log's checks.
	download := func(version string, verified bool) int64 {
		t.Helper()
		before := counter.n.Load()
		detail, err := c.GetPackage(ctx, "alice", "widget")
		if err != nil {
			t.Fatal(err)
		}
		content, _, err := c.Raw(ctx, "alice", "widget", version)
		if err != nil {
			t.Fatal(err)
		}
		if verified {
			v, err := c.NewLogVerifier(key, cache)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := v.VerifyVersion(ctx, "alice", "widget", version, detail.FindVersion(version).LogIndex, content); err != nil {
				t.Fatal(err)
			}
		}
		return counter.n.Load() - before
	}
	// publish publishes and waits for a checkpoint that covers it, so the
	// counts below do not include waiting for one.
	publish := func(version string) {
		t.Helper()
		if _, err := c.Publish(ctx, client.PublishRequest{Content: packDoc("name: widget\nversion: " + version)}); err != nil {
			t.Fatal(err)
		}
		detail, err := c.GetPackage(ctx, "alice", "widget")
		if err != nil {
			t.Fatal(err)
		}
		v, err := c.NewLogVerifier(key, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Latest(ctx, *detail.FindVersion(version).LogIndex+1); err != nil {
			t.Fatal(err)
		}
	}
	publish("1.0.0")
	download("1.0.0", true) // the first run: pins nothing here, keeps the checkpoint and tiles
	publish("1.1.0")
	plain := download("1.1.0", false)
	verified := download("1.1.0", true)
	again := download("1.1.0", true)
	t.Logf("unverified download: %d requests; verified, new version: %d (+%d); same again: %d (+%d)",
		plain, verified, verified-plain, again, again-plain)
	if plain != 2 || verified-plain > 2 || again-plain > 1 {
		t.Errorf("requests: %d unverified, %d verified, %d again; want 2, at most 2 more, at most 1 more", plain, verified, again)
	}
}
