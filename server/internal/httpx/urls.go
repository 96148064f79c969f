package httpx

// URLs builds the public links of packages from the configured base URL,
// never from the Host header.
type URLs struct {
	Base string // without a trailing slash
}

// Package is the page of owner/pack.
func (u URLs) Package(owner, pack string) string {
	return u.Base + "/" + owner + "/" + pack
}

// Raw is the latest document of owner/pack.
func (u URLs) Raw(owner, pack string) string {
	return u.Base + "/raw/" + owner + "/" + pack + ".pact.md"
}

// VersionRaw is one version's document.
func (u URLs) VersionRaw(owner, pack, version string) string {
	return u.Base + "/raw/" + owner + "/" + pack + "@" + version + ".pact.md"
}

// InstallCommand is the shell command that fetches a document.
func InstallCommand(rawURL, pack string) string {
	return "curl -fsSL " + rawURL + " -o " + pack + ".pact.md"
}
