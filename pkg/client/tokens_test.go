package client_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/pact-registry/pact/pkg/client"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, _ := newAccount(t)

	made, err := c.CreateToken(ctx, client.TokenOptions{Name: "ci", Scopes: []string{"publish"}, Packages: []string{"widget-*"}, ExpiresInDays: 30})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(made.Token, "pact_") || made.Name != "ci" || made.Scopes == nil || !slices.Equal(*made.Scopes, []string{"publish"}) ||
		made.Packages == nil || !slices.Equal(*made.Packages, []string{"widget-*"}) || made.ExpiresAt == nil {
		t.Errorf("created token = %+v", made)
	}
	readOnly, err := c.CreateToken(ctx, client.TokenOptions{Name: "read", Scopes: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if readOnly.Scopes == nil || len(*readOnly.Scopes) != 0 || readOnly.ExpiresAt != nil {
		t.Errorf("a token with no scopes = %+v, want scopes [] and no expiry", readOnly)
	}
	limited := newClient(t, made.Token)
	_, err = limited.CreateToken(ctx, client.TokenOptions{Name: "more"})
	if apiErr := wantStatus(t, err, http.StatusForbidden); !strings.Contains(apiErr.Message, `"tokens" scope`) {
		t.Errorf("message = %q", apiErr.Message)
	}

	tokens, err := c.ListTokens(ctx, client.TokenListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tokens) != 3 || tokens[0].ID != readOnly.ID || tokens[1].ID != made.ID {
		t.Fatalf("ListTokens = %+v, want read, ci and the first token", tokens)
	}
	if err := c.RevokeToken(ctx, made.ID); err != nil {
		t.Fatal(err)
	}
	_, err = limited.Me(ctx)
	wantStatus(t, err, http.StatusUnauthorized)
	wantStatus(t, c.RevokeToken(ctx, 999999), http.StatusNotFound)
}
