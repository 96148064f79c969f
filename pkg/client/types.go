package client

import "github.com/pact-registry/pact/pkg/wire"

// The values of the interface are the wire types of pkg/wire, which the
// server encodes; these aliases keep their names in this package.
type (
	// Package is a published pack: one (owner, pack) pair, described by
	// its latest version.
	Package = wire.Package
	// Version is one immutable published document of a package.
	Version = wire.Version
	// Signature is the provenance of a version published by SSH signature,
	// kept so anyone can verify it again with ssh-keygen -Y verify.
	Signature = wire.Signature
	// PackageDetail is a package with all its versions, newest first.
	PackageDetail = wire.PackageDetail
	// User is the account an API token belongs to.
	User = wire.User
	// Key is an SSH public key registered for signed publishing.
	Key = wire.Key
	// PublishedVersion is the version a publish answers with.
	PublishedVersion = wire.PublishedVersion
	// PackageDownloads are a package's download counts: in all, by
	// version and by day for the last 90 days.
	PackageDownloads = wire.PackageDownloads
	// DownloadDay is the downloads of a package on one UTC day.
	DownloadDay = wire.DownloadDay
)

// PackageList is one page of the package list, newest latest version first: the
// answer's wire.PackageList with the cursor as a plain string.
type PackageList struct {
	Packages []Package `json:"packages"`
	// NextCursor fetches the following page; "" on the last page.
	NextCursor string `json:"next_cursor"`
	// Suggestions are slugs near the words of a search that found little,
	// the nearest first.
	Suggestions []string `json:"suggestions,omitempty"`
}

// PublishResult is the answer to a publish, token or signed: the answer's
// wire.PublishResult or wire.SignedPublishResult.
type PublishResult struct {
	Package Package `json:"package"`
	// Created is false when the same version with the same content was
	// published before (a harmless retry).
	Created bool `json:"created"`
	// Auth is "ssh-signature" for signed publishes, "" otherwise.
	Auth string `json:"auth,omitempty"`
	// Warnings say what the name lost on its way to the slug (characters
	// without a slug form, a cut); empty when nothing was lost. They are
	// the server's text: escape them before printing to a terminal.
	Warnings []string `json:"warnings"`
	// Published is the version published, or the identical one that
	// existed, which Package (the latest version) does not name when it
	// is older or a pre-release; nil from a registry that does not say.
	Published *PublishedVersion `json:"published"`
}
