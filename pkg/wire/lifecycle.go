package wire

// The bodies of yanking, un-yanking and deprecating (docs/protocol.md,
// Yanking and Deprecating a package).

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
