// Package openapi holds pact's OpenAPI 3.0.3 document, the contract of every
// route, field, header and status the service emits. The server serves JSON
// at GET /openapi.json and server/apitest validates every test response
// against it. It lives in its own package so both can embed the one file
// without importing each other.
package openapi

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"
)

// JSON is the document exactly as it is served.
//
//go:embed openapi.json
var JSON []byte

// Load parses JSON and validates it as an OpenAPI document. Every call
// returns a fresh *openapi3.T, so callers may change theirs freely.
func Load() (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(JSON)
	if err != nil {
		return nil, fmt.Errorf("openapi: parsing openapi.json: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi: openapi.json is not a valid OpenAPI document: %w", err)
	}
	return doc, nil
}
