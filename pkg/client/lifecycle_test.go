package client_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/pact-registry/pact/pkg/client"
)

func TestYankUnyankAndDeprecate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, owner := newAccount(t)
	for _, v := range []string{"1.0.0", "2.0.0"} {
		if _, err := c.Publish(ctx, client.PublishRequest{Content: packDoc("name: tool\nversion: " + v)}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := c.YankVersion(ctx, owner, "tool", "2.0.0", "broken")
	if err != nil || res.Package.Version != "1.0.0" || !res.Version.Yanked || res.Version.YankReason != "broken" {
		t.Fatalf("YankVersion = %+v, %v; want 2.0.0 yanked and 1.0.0 the latest", res, err)
	}
	detail, err := c.GetPackage(ctx, owner, "tool")
	if err != nil || !detail.FindVersion("2.0.0").Yanked || detail.FindVersion("1.0.0").Yanked {
		t.Fatalf("GetPackage after the yank = %+v, %v", detail, err)
	}
	res, err = c.UnyankVersion(ctx, owner, "tool", "2.0.0")
	if err != nil || res.Package.Version != "2.0.0" || res.Version.Yanked {
		t.Fatalf("UnyankVersion = %+v, %v; want 2.0.0 the latest again", res, err)
	}
	p, err := c.DeprecatePackage(ctx, owner, "tool", "use another")
	if err != nil || p.Deprecated != "use another" {
		t.Fatalf("DeprecatePackage = %+v, %v", p, err)
	}
	if p, err = c.DeprecatePackage(ctx, owner, "tool", ""); err != nil || p.Deprecated != "" {
		t.Fatalf("DeprecatePackage(\"\") = %+v, %v", p, err)
	}

	// Another account may do none of it.
	other, _ := newAccount(t)
	_, err = other.YankVersion(ctx, owner, "tool", "2.0.0", "")
	wantStatus(t, err, http.StatusForbidden)
	_, err = other.DeprecatePackage(ctx, owner, "tool", "mine")
	wantStatus(t, err, http.StatusForbidden)
	_, err = c.UnyankVersion(ctx, owner, "tool", "9.9.9")
	wantStatus(t, err, http.StatusNotFound)
}
