package idtoken

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	jose "github.com/go-jose/go-jose/v4"
)

// KeyRefetchInterval is the least time between two fetches of one
// issuer's keys (docs/protocol.md, Trusted publishing).
const KeyRefetchInterval = 30 * time.Second

// maxJWKSBytes bounds an issuer's JWKS: GitHub's and GitLab's are a few KB.
const maxJWKSBytes = 1 << 20

// errFetchWithheld is what the gate answers a JWKS fetch it does not let
// through.
var errFetchWithheld = errors.New("JWKS fetch withheld: the token's key id is among the keys held, or they were fetched less than KeyRefetchInterval ago")

// keySet is go-oidc's RemoteKeySet of one issuer behind a gate. The
// RemoteKeySet fetches the JWKS again whenever a signature fails to verify
// with the keys it holds, so every forged token would cost the issuer a
// request; the keySet lets a fetch through only for a token whose key id
// is not among the keys fetched last, at most once per KeyRefetchInterval.
// The RemoteKeySet still does all the fetching, caching and verifying: the
// gate is the HTTP transport of its client.
type keySet struct {
	remote *oidc.RemoteKeySet
	base   http.RoundTripper
	now    func() time.Time

	mu      sync.Mutex
	kids    map[string]bool // the key ids of the JWKS fetched last; nil before the first
	fetched time.Time       // when the last fetch was let through
	permit  bool            // the next fetch may go out
}

func newKeySet(jwksURL string, timeout time.Duration, now func() time.Time) *keySet {
	k := &keySet{base: http.DefaultTransport, now: now}
	client := &http.Client{Timeout: timeout, Transport: k}
	k.remote = oidc.NewRemoteKeySet(oidc.ClientContext(context.Background(), client), jwksURL)
	return k
}

// VerifySignature implements oidc.KeySet.
func (k *keySet) VerifySignature(ctx context.Context, raw string) ([]byte, error) {
	k.mayFetch(keyID(raw))
	payload, err := k.remote.VerifySignature(ctx, raw)
	if errors.Is(err, errFetchWithheld) {
		k.mu.Lock()
		never := k.kids == nil
		k.mu.Unlock()
		if never {
			// The keys could not be fetched yet: the issuer is down.
			return nil, fmt.Errorf("fetching keys: %w", err)
		}
		return nil, errors.New("no key of the issuer verifies the signature")
	}
	return payload, err
}

// mayFetch lets the next JWKS fetch through when kid is not among the keys
// fetched last and none was let through in the last KeyRefetchInterval.
func (k *keySet) mayFetch(kid string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	if k.kids[kid] || (!k.fetched.IsZero() && now.Sub(k.fetched) < KeyRefetchInterval) {
		return
	}
	k.fetched, k.permit = now, true
}

// RoundTrip is the gate: the RemoteKeySet's requests, all of them fetches
// of the JWKS, go out only with a permit, and the key ids of what they
// fetch are noted.
func (k *keySet) RoundTrip(req *http.Request) (*http.Response, error) {
	k.mu.Lock()
	permit := k.permit
	k.permit = false
	k.mu.Unlock()
	if !permit {
		return nil, errFetchWithheld
	}
	resp, err := k.base.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(body) > maxJWKSBytes {
		return nil, fmt.Errorf("the JWKS is larger than %d bytes", maxJWKSBytes)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var set struct {
		Keys []struct {
			KeyID string `json:"kid"`
		} `json:"keys"`
	}
	if json.Unmarshal(body, &set) == nil {
		kids := map[string]bool{}
		for _, key := range set.Keys {
			kids[key.KeyID] = true
		}
		k.mu.Lock()
		k.kids = kids
		k.mu.Unlock()
	}
	return resp, nil
}

// keyID is the key id in raw's JOSE header, "" when it has none or is not
// a JWS (the verifier refuses it then).
func keyID(raw string) string {
	jws, err := jose.ParseSignedCompact(raw, signatureAlgorithms) // an ID token is a compact JWS
	if err != nil || len(jws.Signatures) != 1 {
		return ""
	}
	return jws.Signatures[0].Header.KeyID
}

var signatureAlgorithms = func() []jose.SignatureAlgorithm {
	out := make([]jose.SignatureAlgorithm, len(SigningAlgorithms))
	for i, a := range SigningAlgorithms {
		out[i] = jose.SignatureAlgorithm(a)
	}
	return out
}()
