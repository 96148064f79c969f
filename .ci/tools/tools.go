//go:build tools

// Package tools pins the release tools .ci/run builds that the Go proxy
// serves without a version list (so `go install pkg@version` is refused):
// cyclonedx-gomod writes the releases' SBOMs (.goreleaser.yaml).
package tools

import _ "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod"
