// Command fakeidp is an OpenID Connect provider for pact's tests: it
// serves a discovery document and a JWKS over plain HTTP on a loopback
// address, and mints ID tokens with the claims a test posts, as GitHub
// Actions and GitLab CI would. It prints "ISSUER <url>" once it listens.
// Nothing outside tests should run it: anyone who reaches it can mint.
//
// Endpoints:
//
//	GET  /.well-known/openid-configuration
//	GET  /jwks
//	GET  /jwks/hits → {"hits": n}, how many times /jwks was fetched
//	POST /mint      {"alg": "RS256"|"ES256"|"none", "unknown_key": false, "kid": "", "claims": {...}} → the JWT as text
//	                (unknown_key signs with a new key the JWKS does not hold, of key id kid, "stranger" by default)
//	POST /rotate    replaces every key by new ones with new key ids
//	GET  /actions/token?audience=A  (Authorization: bearer <request token>)
//	     → {"value": JWT}, GitHub Actions' ACTIONS_ID_TOKEN_REQUEST_URL shape,
//	     with the claims last posted to POST /actions/claims and aud A
//
// Both fill in iss, iat, nbf, exp (5 minutes) and a fresh jti when absent.
package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

type key struct {
	alg  jose.SignatureAlgorithm
	kid  string
	priv crypto.Signer
}

type provider struct {
	issuer       string
	requestToken string

	mu            sync.Mutex
	generation    int
	keys          map[jose.SignatureAlgorithm]key
	actionsClaims map[string]any
	jwksHits      int
}

func newKey(alg jose.SignatureAlgorithm, kid string) key {
	var priv crypto.Signer
	var err error
	switch alg {
	case jose.RS256:
		priv, err = rsa.GenerateKey(rand.Reader, 2048)
	case jose.ES256:
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	}
	if err != nil {
		log.Fatal(err)
	}
	return key{alg, kid, priv}
}

func (p *provider) rotate() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.generation++
	p.keys = map[jose.SignatureAlgorithm]key{
		jose.RS256: newKey(jose.RS256, fmt.Sprintf("rsa-%d", p.generation)),
		jose.ES256: newKey(jose.ES256, fmt.Sprintf("ec-%d", p.generation)),
	}
}

func (p *provider) discovery(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, map[string]any{
		"issuer": p.issuer, "jwks_uri": p.issuer + "/jwks",
		"subject_types_supported": []string{"public"}, "response_types_supported": []string{"id_token"},
		"id_token_signing_alg_values_supported": []string{"RS256", "ES256"},
		"claims_supported":                      []string{"sub", "aud", "exp", "iat", "iss", "jti", "nbf", "ref", "repository", "job_workflow_ref"},
		"scopes_supported":                      []string{"openid"},
	})
}

func (p *provider) jwks(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.jwksHits++
	var set jose.JSONWebKeySet
	for _, k := range []jose.SignatureAlgorithm{jose.RS256, jose.ES256} {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: p.keys[k].priv.Public(), KeyID: p.keys[k].kid, Algorithm: string(k), Use: "sig"})
	}
	writeJSON(w, set)
}

type mintRequest struct {
	Alg        string         `json:"alg"`
	UnknownKey bool           `json:"unknown_key"`
	KeyID      string         `json:"kid"`
	Claims     map[string]any `json:"claims"`
}

func (p *provider) mint(req mintRequest) (string, error) {
	// What a script cannot know in advance: the issuer, the times and a
	// fresh jti, filled in as GitHub and GitLab fill them when absent.
	now := time.Now()
	claims := map[string]any{"iss": p.issuer, "iat": now.Unix(), "nbf": now.Unix(),
		"exp": now.Add(5 * time.Minute).Unix(), "jti": rand.Text()}
	for name, value := range req.Claims {
		claims[name] = value
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	if req.Alg == "none" {
		header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
		return header + "." + base64.RawURLEncoding.EncodeToString(payload) + ".", nil
	}
	alg := jose.SignatureAlgorithm(req.Alg)
	if alg == "" {
		alg = jose.RS256
	}
	p.mu.Lock()
	k, ok := p.keys[alg]
	p.mu.Unlock()
	if !ok {
		return "", fmt.Errorf("alg %q is not RS256, ES256 or none", req.Alg)
	}
	if req.UnknownKey {
		kid := req.KeyID
		if kid == "" {
			kid = "stranger"
		}
		k = newKey(alg, kid)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: k.priv, KeyID: k.kid}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", err
	}
	sig, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return sig.CompactSerialize()
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	requestToken := flag.String("request-token", "request-token", "the bearer token /actions/token wants")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	p := &provider{issuer: "http://" + ln.Addr().String(), requestToken: *requestToken}
	p.rotate()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /jwks/hits", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		writeJSON(w, map[string]int{"hits": p.jwksHits})
	})
	mux.HandleFunc("POST /rotate", func(w http.ResponseWriter, r *http.Request) { p.rotate(); writeJSON(w, map[string]bool{"ok": true}) })
	mux.HandleFunc("POST /mint", func(w http.ResponseWriter, r *http.Request) {
		var req mintRequest
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		jwt, err := p.mint(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprint(w, jwt)
	})
	mux.HandleFunc("POST /actions/claims", func(w http.ResponseWriter, r *http.Request) {
		var claims map[string]any
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&claims); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p.mu.Lock()
		p.actionsClaims = claims
		p.mu.Unlock()
		writeJSON(w, map[string]bool{"ok": true})
	})
	mux.HandleFunc("GET /actions/token", func(w http.ResponseWriter, r *http.Request) {
		if !strings.EqualFold(r.Header.Get("Authorization"), "bearer "+p.requestToken) {
			http.Error(w, `{"message":"bad request token"}`, http.StatusUnauthorized)
			return
		}
		p.mu.Lock()
		claims := map[string]any{}
		for k, v := range p.actionsClaims {
			claims[k] = v
		}
		p.mu.Unlock()
		if aud := r.URL.Query().Get("audience"); aud != "" {
			claims["aud"] = aud
		}
		jwt, err := p.mint(mintRequest{Alg: "RS256", Claims: claims})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, map[string]any{"count": 1, "value": jwt})
	})
	fmt.Fprintf(os.Stdout, "ISSUER %s\n", p.issuer)
	log.Fatal(http.Serve(ln, mux))
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
