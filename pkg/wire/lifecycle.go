package wire

// The bodies of yanking, un-yanking, deprecating and a package's settings
// (docs/protocol.md, Yanking, Deprecating a package and Trusted publishing
// only).

// YankRequest is the optional body of
// POST /api/packages/{owner}/{pack}/versions/{version}/yank.
type YankRequest struct {
	Reason *string `json:"reason,omitempty"` // one line, at most 200 characters
}

// YankResult answers yank and unyank: the package as it is now (its latest
// version may have moved) and the version.
type YankResult struct {
	OK      bool    `json:"ok"`
	Package Package `json:"package"`
	Version Version `json:"version"`
}

// DeprecateRequest is the body of POST /api/packages/{owner}/{pack}/deprecate.
// Message is required; "" undoes the deprecation.
type DeprecateRequest struct {
	Message *string `json:"message"` // one line, at most 500 characters
}

// DeprecateResult answers deprecate: the package as it is now.
type DeprecateResult struct {
	OK      bool    `json:"ok"`
	Package Package `json:"package"`
}

// PackageSettingsRequest is the body of PATCH /api/packages/{owner}/{pack}:
// the settings to change. TrustedPublishingOnly is required (the only
// setting so far), so that a body that lost its field changes nothing
// silently.
type PackageSettingsRequest struct {
	TrustedPublishingOnly *bool `json:"trusted_publishing_only"`
}

// PackageSettingsRequestFields are the fields of PackageSettingsRequest;
// the server refuses others, so a setting it does not know is never
// ignored.
var PackageSettingsRequestFields = []string{"trusted_publishing_only"}

// PackageSettingsResult answers PATCH /api/packages/{owner}/{pack}: the
// package as it is now.
type PackageSettingsResult struct {
	OK      bool    `json:"ok"`
	Package Package `json:"package"`
}
