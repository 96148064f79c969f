// Package openapicheck parses and validates pact's OpenAPI document with
// kin-openapi. Only tests import it: the validator and the JSON Schema
// library it pulls in would add megabytes to pactd, which serves the
// document as bytes and never needs to understand it.
package openapicheck

import (
	"context"
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/pact-registry/pact/server/openapi"
)

// Load parses openapi.JSON and validates it as an OpenAPI document. Every
// call returns a fresh *openapi3.T, so callers may change theirs freely.
func Load() (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(openapi.JSON)
	if err != nil {
		return nil, fmt.Errorf("openapi: parsing openapi.json: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi: openapi.json is not a valid OpenAPI document: %w", err)
	}
	return doc, nil
}
