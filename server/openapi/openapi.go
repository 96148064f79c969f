// Package openapi holds pact's OpenAPI 3.0.3 document, the contract of every
// route, field, header and status the service emits. The server serves it at
// GET /openapi.json and the tests validate every response against it (with
// internal/openapicheck, which pactd does not link). It lives in its own
// package so both can embed the one file without importing each other.
package openapi

import _ "embed"

// JSON is the document exactly as it is served.
//
//go:embed openapi.json
var JSON []byte
