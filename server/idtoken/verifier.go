// Package idtoken verifies the OpenID Connect ID tokens that CI jobs
// exchange for publish tokens (docs/protocol.md, Trusted publishing), with
// github.com/coreos/go-oidc: discovery and JWKS per allowed issuer, fetched
// when first needed and cached, the keys fetched again when a token names
// a key id not among them, at most once per KeyRefetchInterval (keyset.go).
package idtoken

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/pact-registry/pact/pkg/clip"
	"github.com/pact-registry/pact/server/registry"
)

// MaxTokenBytes bounds an ID token: GitHub's and GitLab's are about 1–2 KB.
const MaxTokenBytes = 8 << 10

// maxClaims bounds the string claims kept from one token.
const maxClaims = 100

// SigningAlgorithms are the JWS algorithms accepted; "none" is never one.
var SigningAlgorithms = []string{oidc.RS256, oidc.RS384, oidc.RS512, oidc.ES256, oidc.ES384, oidc.PS256}

// Verifier checks ID tokens for one audience against allowed issuers.
type Verifier struct {
	audience string
	issuers  []string
	client   *http.Client
	now      func() time.Time

	mu        sync.Mutex
	verifiers map[string]*oidc.IDTokenVerifier // by issuer, once discovered
}

// New returns a Verifier of tokens for audience (the registry's base URL)
// from issuers. now is the clock (nil: time.Now).
func New(audience string, issuers []string, now func() time.Time) *Verifier {
	if now == nil {
		now = time.Now
	}
	return &Verifier{audience: audience, issuers: slices.Clone(issuers), now: now,
		client:    &http.Client{Timeout: 10 * time.Second},
		verifiers: map[string]*oidc.IDTokenVerifier{}}
}

// Verify checks raw's signature, issuer, audience, expiry and not-before.
// Every refusal is an Unauthorized *registry.Error naming the check that
// failed, never quoting the token; an issuer that cannot be reached is
// Unavailable.
func (v *Verifier) Verify(ctx context.Context, raw string) (registry.IDToken, error) {
	if raw == "" {
		return registry.IDToken{}, registry.Errorf(registry.Unauthorized, "token is required: the CI job's OpenID Connect ID token")
	}
	if len(raw) > MaxTokenBytes {
		return registry.IDToken{}, registry.Errorf(registry.Unauthorized, "format check failed: the ID token is longer than %d bytes", MaxTokenBytes)
	}
	issuer, err := peekIssuer(raw)
	if err != nil {
		return registry.IDToken{}, err
	}
	if !slices.Contains(v.issuers, issuer) {
		return registry.IDToken{}, registry.Errorf(registry.Unauthorized, "issuer check failed: %q is not an issuer this registry allows", clip.Text(issuer, 100))
	}
	verifier, err := v.verifier(ctx, issuer)
	if err != nil {
		return registry.IDToken{}, err
	}
	tok, err := verifier.Verify(oidc.ClientContext(ctx, v.client), raw)
	if err != nil {
		return registry.IDToken{}, v.refusal(issuer, err)
	}
	var all map[string]any
	if err := tok.Claims(&all); err != nil {
		return registry.IDToken{}, registry.Errorf(registry.Unauthorized, "format check failed: the ID token's claims are not a JSON object")
	}
	out := registry.IDToken{Issuer: tok.Issuer, Expiry: tok.Expiry.UTC(), Claims: map[string]string{}}
	for name, value := range all {
		if s, ok := value.(string); ok && len(out.Claims) < maxClaims {
			out.Claims[name] = s
		}
	}
	out.JTI = out.Claims["jti"]
	return out, nil
}

// verifier discovers issuer once; a failed discovery is not cached, so the
// next exchange tries again.
func (v *Verifier) verifier(ctx context.Context, issuer string) (*oidc.IDTokenVerifier, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if iv, ok := v.verifiers[issuer]; ok {
		return iv, nil
	}
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	// The provider keeps this context for its key fetches: only its HTTP
	// client, never the request's cancellation.
	p, err := oidc.NewProvider(oidc.ClientContext(dctx, v.client), issuer)
	if err != nil {
		return nil, registry.Errorf(registry.Unavailable, "issuer check could not be made: OpenID discovery of %s failed; nothing was issued, try again later", issuer)
	}
	var meta struct {
		JWKSURL string `json:"jwks_uri"`
	}
	if err := p.Claims(&meta); err != nil || meta.JWKSURL == "" {
		return nil, registry.Errorf(registry.Unavailable, "issuer check could not be made: the OpenID discovery document of %s names no jwks_uri; nothing was issued, try again later", issuer)
	}
	iv := oidc.NewVerifier(issuer, newKeySet(meta.JWKSURL, v.client.Timeout, v.now), &oidc.Config{
		ClientID: v.audience, SupportedSigningAlgs: SigningAlgorithms, Now: v.now,
	})
	v.verifiers[issuer] = iv
	return iv, nil
}

func (v *Verifier) refusal(issuer string, err error) error {
	var expired *oidc.TokenExpiredError
	msg := err.Error()
	switch {
	case errors.As(err, &expired):
		return registry.Errorf(registry.Unauthorized, "expiry check failed: the ID token expired at %s", expired.Expiry.UTC().Format(time.RFC3339))
	case strings.Contains(msg, "fetching keys"):
		return registry.Errorf(registry.Unavailable, "signature check could not be made: the keys of %s could not be fetched; nothing was issued, try again later", issuer)
	case strings.Contains(msg, "expected audience"):
		return registry.Errorf(registry.Unauthorized, "audience check failed: the ID token's audience must be %s", v.audience)
	case strings.Contains(msg, "nbf"):
		return registry.Errorf(registry.Unauthorized, "not-before check failed: the ID token is not valid yet")
	case strings.Contains(msg, "different provider"):
		return registry.Errorf(registry.Unauthorized, "issuer check failed: the ID token's issuer is not %s", issuer)
	case strings.Contains(msg, "malformed jwt"), strings.Contains(msg, "not signed"), strings.Contains(msg, "multiple signatures"):
		return registry.Errorf(registry.Unauthorized, "signature check failed: the ID token is not a JWT signed with one of %s", strings.Join(SigningAlgorithms, ", "))
	case strings.Contains(msg, "signature"):
		return registry.Errorf(registry.Unauthorized, "signature check failed: no key of %s verifies the ID token", issuer)
	}
	return registry.Errorf(registry.Unauthorized, "format check failed: the ID token could not be read")
}

// peekIssuer reads the iss claim of an unverified JWT, only to choose the
// keys that verify it.
func peekIssuer(raw string) (string, error) {
	bad := registry.Errorf(registry.Unauthorized, "format check failed: the token is not a JWT (three base64url parts)")
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return "", bad
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return "", bad
	}
	var claims struct {
		Issuer string `json:"iss"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return "", bad
	}
	if claims.Issuer == "" {
		return "", registry.Errorf(registry.Unauthorized, "issuer check failed: the ID token has no iss claim")
	}
	return claims.Issuer, nil
}
