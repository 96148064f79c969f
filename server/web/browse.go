package web

import (
	"html"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// packageView is a package as the pages show it.
type packageView struct {
	registry.Package
	Path           string // the page, relative to the site
	RawURL         string
	InstallCommand string // curl
	GetCommand     string // pact get
	SchemeURL      string // the search filtered by the package's scheme
}

func (pages *Pages) viewPackage(p *registry.Package) packageView {
	raw := pages.shared.URLs.Raw(p.OwnerSlug, p.PackSlug)
	return packageView{
		Package:        *p,
		Path:           "/" + p.OwnerSlug + "/" + p.PackSlug,
		RawURL:         raw,
		InstallCommand: httpx.InstallCommand(raw, p.PackSlug),
		GetCommand:     pages.cliCommand("get", p.OwnerSlug+"/"+p.PackSlug),
		SchemeURL:      searchURL("", p.Scheme),
	}
}

// cliCommand is a pact command line for this registry: pact verb --host
// BASE args. The host is always named, so the line works whatever host
// the reader's pact is set up for.
func (pages *Pages) cliCommand(verb string, args ...string) string {
	return "pact " + verb + " --host " + pages.shared.URLs.Base + " " + strings.Join(args, " ")
}

// searchURL is the search page for q and scheme ("" for any).
func searchURL(q, scheme string) string {
	v := url.Values{}
	if q != "" {
		v.Set("q", q)
	}
	if scheme != "" {
		v.Set("scheme", scheme)
	}
	if len(v) == 0 {
		return "/"
	}
	return "/?" + v.Encode()
}

// packageList is one page of packages and the links to its neighbours.
type packageList struct {
	Heading  string
	Packages []packageView
	Query    string
	Scheme   string // the scheme filter, "" for any
	// Schemes are the schemes to offer in the filter: those on this page
	// and the chosen one.
	Schemes  []string
	AnyURL   string // the search without the scheme filter
	NextURL  string // "" on the last page
	FirstURL string // "" on the first page
	Empty    string // what to say when there are none
	// Suggestions are searches for slugs near the words of a search that
	// found little ("Did you mean ...").
	Suggestions []suggestion
	// Intro is what the home page says above the latest packages; nil on
	// other lists.
	Intro *homeIntro
}

// homeIntro tells a newcomer how to start, in three lines to copy, and
// what the registry holds.
type homeIntro struct {
	Install, Login, Publish copyLine
	// Counts says how many packages and versions the registry holds, ""
	// when they could not be counted: the page is worth showing anyway.
	Counts string
}

// installCommand installs the pact CLI (README, A first publish).
const installCommand = "go install github.com/pact-registry/pact/cmd/pact@latest"

func (pages *Pages) homeIntro(c *gin.Context) *homeIntro {
	intro := &homeIntro{
		Install: copyLine{ID: "start-install", Text: installCommand},
		Login:   copyLine{ID: "start-login", Text: "pact login --host " + pages.shared.URLs.Base},
		Publish: copyLine{ID: "start-publish", Text: "pact publish my-pack.pact.md"},
	}
	counts, err := pages.svc.Counts(c)
	if err != nil {
		pages.shared.Logger(c).Warn("counting packages for the home page", "error", err.Error())
		return intro
	}
	intro.Counts = howMany(counts.Packages, "package", "packages") + ", " + howMany(counts.Versions, "version", "versions")
	return intro
}

// howMany is n things in words: "1 package", "12,345 versions".
func howMany(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	digits := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String() + " " + many
}

// suggestion is a slug to search for instead, and the search's URL.
type suggestion struct{ Slug, URL string }

func (pages *Pages) listPage(c *gin.Context, base string, q registry.ListQuery) (*packageList, error) {
	q.Limit = pages.pageSize
	pkgs, next, err := pages.svc.ListPackages(c, q)
	if err != nil {
		return nil, err
	}
	list := &packageList{Query: q.Query, Scheme: q.Scheme, AnyURL: searchURL(q.Query, "")}
	suggested, err := pages.svc.Suggestions(c, q, pkgs)
	if err != nil {
		return nil, err
	}
	for _, slug := range suggested {
		list.Suggestions = append(list.Suggestions, suggestion{Slug: slug, URL: searchURL(slug, q.Scheme)})
	}
	seen := map[string]bool{"": true}
	if q.Scheme != "" {
		seen[q.Scheme] = true
		list.Schemes = append(list.Schemes, q.Scheme)
	}
	for i := range pkgs {
		view := pages.viewPackage(&pkgs[i])
		if q.Owner == "" {
			view.SchemeURL = searchURL(q.Query, view.Scheme)
		}
		list.Packages = append(list.Packages, view)
		if !seen[view.Scheme] {
			seen[view.Scheme] = true
			list.Schemes = append(list.Schemes, view.Scheme)
		}
	}
	link := func(cursor string) string {
		v := url.Values{}
		if q.Query != "" {
			v.Set("q", q.Query)
		}
		if q.Scheme != "" {
			v.Set("scheme", q.Scheme)
		}
		if cursor != "" {
			v.Set("cursor", cursor)
		}
		if len(v) == 0 {
			return base
		}
		return base + "?" + v.Encode()
	}
	if next != "" {
		list.NextURL = link(next)
	}
	if q.Cursor != "" {
		list.FirstURL = link("")
	}
	return list, nil
}

// home lists the latest packages, or those matching the search box.
func (pages *Pages) home(c *gin.Context) {
	query := strings.TrimSpace(c.Query("q"))
	scheme := strings.TrimSpace(c.Query("scheme"))
	list, err := pages.listPage(c, "/", registry.ListQuery{Query: query, Scheme: scheme, Cursor: c.Query("cursor")})
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	list.Heading = "Latest packages"
	list.Empty = "Nothing has been published yet."
	if query == "" && scheme == "" && list.FirstURL == "" {
		list.Intro = pages.homeIntro(c)
	}
	switch {
	case query != "" && scheme != "":
		list.Heading = "Packages matching “" + query + "” of scheme " + scheme
		list.Empty = "No package of this scheme matches your search."
	case query != "":
		list.Heading = "Packages matching “" + query + "”"
		list.Empty = "No package matches your search."
	case scheme != "":
		list.Heading = "Packages of scheme " + scheme
		list.Empty = "No package has this scheme."
	}
	pages.render(c, http.StatusOK, "home.html", query, list)
}

// ownerKeysOrPage serves /{owner}.keys (the account's public keys as
// authorized_keys lines, as GitHub does) and the owner's page.
func (pages *Pages) ownerKeysOrPage(c *gin.Context) {
	owner, isKeys := strings.CutSuffix(c.Param("owner"), ".keys")
	if isKeys {
		pages.authorizedKeys(c, owner)
		return
	}
	acct, err := pages.svc.AccountByUsername(c, owner)
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	list, err := pages.listPage(c, "/"+acct.Username, registry.ListQuery{Owner: acct.Username, Cursor: c.Query("cursor")})
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	list.Heading = "Packages"
	list.Empty = acct.Username + " has not published anything yet."
	data := gin.H{"Owner": acct, "List": list}
	if acct.IsOrg() {
		org, err := pages.svc.Org(c, acct.Username)
		if err != nil {
			pages.errorPage(c, err)
			return
		}
		data["Org"] = org
		list.Empty = "Nothing has been published into " + acct.Username + " yet."
	} else if orgs, err := pages.svc.OrgsOf(c, acct); err == nil {
		data["Orgs"] = orgs
	}
	pages.render(c, http.StatusOK, "owner.html", "", data)
}

// authorizedKeys is part of the interface (openapi.json), so an unknown
// owner gets the JSON error object, not a page.
func (pages *Pages) authorizedKeys(c *gin.Context, owner string) {
	keys, err := pages.svc.AuthorizedKeys(c, owner)
	if err != nil {
		pages.shared.Fail(c, err)
		return
	}
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k.PublicKey)
		if k.Name != "" {
			b.WriteString(" " + k.Name)
		}
		b.WriteString("\n")
	}
	c.Data(http.StatusOK, "text/plain; charset=utf-8", []byte(b.String()))
}

// versionView is one row of a package's versions.
type versionView struct {
	Number      string
	Name        string
	Description string
	Scheme      string
	SHA256      string
	Size        int64
	CreatedAt   time.Time
	Provenance  *registry.Provenance // nil unless published by SSH signature
	Path        string               // the page of this version
	RawURL      string
	Current     bool // the version the page shows
	Yanked      bool
	YankReason  string
	// BuiltBy names the CI job of a version from trusted publishing, ""
	// for others (ci.go).
	BuiltBy string
	// VerifyCommand checks this version against the transparency log and,
	// if it is signed, its signature (pact verify); KeygenRecipe checks a
	// signed version's signature with jq and ssh-keygen alone. Both are
	// set for the version a page shows only (withChecks).
	VerifyCommand string
	KeygenRecipe  string
	// PublishedBy is the account that published the version (for an
	// organisation's package, the member), "" when not known.
	PublishedBy  string
	PublishedVia string // "token", "SSH signature" or "trusted publishing"
	// LogIndex is the version's transparency log entry and LogPath its
	// page; LogPath is "" while the log is being built.
	LogIndex int64
	LogPath  string
}

func (pages *Pages) viewVersion(p *registry.Package, v *registry.Version) versionView {
	view := versionView{
		Number: v.Version, Name: v.Name, Description: v.Description, Scheme: v.Scheme, SHA256: v.SHA256,
		Size: v.Size, CreatedAt: v.CreatedAt, Provenance: v.Provenance,
		Path:   "/" + p.OwnerSlug + "/" + p.PackSlug + "@" + v.Version,
		RawURL: pages.shared.URLs.VersionRaw(p.OwnerSlug, p.PackSlug, v.Version),
		Yanked: v.Yanked(), YankReason: v.YankReason,
		BuiltBy:      builtBy(v.CI),
		PublishedBy:  publishedBy(v),
		PublishedVia: publishedVia(v),
	}
	if v.LogIndex != nil {
		view.LogIndex, view.LogPath = *v.LogIndex, logEntryPath(*v.LogIndex)
	}
	return view
}

// withChecks adds how to check the version shown: only that one, not every
// row of the versions, needs its commands.
func (pages *Pages) withChecks(p *registry.Package, v *registry.Version, view *versionView) {
	view.VerifyCommand = pages.cliCommand("verify", p.OwnerSlug+"/"+p.PackSlug+"@"+v.Version)
	view.KeygenRecipe = pages.keygenRecipe(p, v)
}

// keygenRecipe is the shell recipe of the README that verifies a signed
// version from its JSON with jq and ssh-keygen (docs/protocol.md, Signed
// publishing).
func (pages *Pages) keygenRecipe(p *registry.Package, v *registry.Version) string {
	if v.Provenance == nil || !v.Provenance.SignedLinesKnown || v.Provenance.PublicKey == "" {
		return ""
	}
	return "curl -fsS " + pages.shared.URLs.Base + "/api/packages/" + p.OwnerSlug + "/" + p.PackSlug + " |\n" +
		"  jq '.versions[] | select(.version == \"" + v.Version + "\")' > version.json\n" +
		`jq -r '"pact-publish-v1\n\(.signature.timestamp)\n\(.signature.nonce)\n\(.sha256)\n\(.signature.signed_name)\n\(.signature.signed_description)"' version.json > message` + "\n" +
		`jq -r '"signer namespaces=\"pact\" \(.signature.public_key)"' version.json > allowed_signers` + "\n" +
		"jq -r .signature.signature version.json > message.sig\n" +
		"ssh-keygen -Y verify -f allowed_signers -I signer -n pact -s message.sig < message"

}

func publishedBy(v *registry.Version) string {
	if v.Publisher == nil {
		return ""
	}
	return v.Publisher.Username
}

func publishedVia(v *registry.Version) string {
	switch {
	case v.Provenance != nil:
		return "SSH signature"
	case v.CI != nil:
		return "trusted publishing"
	case v.TokenID != 0:
		return "API token " + strconv.FormatInt(v.TokenID, 10)
	}
	return "API token"
}

// packagePage shows /{owner}/{pack} (the latest version, also at
// /{owner}/{pack}@latest) or /{owner}/{pack}@{version} (one version), with
// its rendered document.
func (pages *Pages) packagePage(c *gin.Context) {
	pack, version, pinned := strings.Cut(c.Param("pack"), "@")
	if pinned && version == "" {
		pages.notFound(c)
		return
	}
	if registry.IsLatestAlias(version) {
		version, pinned = "", false
	}
	p, versions, err := pages.svc.PackageDetail(c, strings.ToLower(c.Param("owner")), strings.ToLower(pack))
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	if version == "" && p.Version == "" {
		pages.allYankedPage(c, p, versions)
		return
	}
	doc, err := pages.svc.Document(c, p.OwnerSlug, p.PackSlug, version)
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	view := pages.viewPackage(p)
	var shown *versionView
	rows := make([]versionView, len(versions))
	for i := range versions {
		rows[i] = pages.viewVersion(p, &versions[i])
		if versions[i].Version == doc.Version {
			rows[i].Current = true
			shown = &rows[i]
		}
	}
	if shown == nil { // published between the two reads; show what we have
		v := pages.viewVersion(p, doc)
		v.Current = true
		shown = &v
	}
	pages.withChecks(p, doc, shown)
	if pinned {
		view.RawURL = shown.RawURL
		view.InstallCommand = httpx.InstallCommand(shown.RawURL, p.PackSlug)
		view.GetCommand = pages.cliCommand("get", p.OwnerSlug+"/"+p.PackSlug+"@"+shown.Number)
	}
	_, downloads, err := pages.svc.PackageDownloads(c, p.OwnerSlug, p.PackSlug)
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	pages.render(c, http.StatusOK, "package.html", "", gin.H{
		"Downloads":   newDownloadsChart(downloads),
		"Package":     view,
		"Shown":       shown,
		"Latest":      shown.Number == p.Version,
		"Pinned":      pinned,
		"Versions":    rows,
		"Document":    withoutTitle(pages.documents.Markdown(doc.Content), shown.Name),
		"Release":     pages.releaseOf(c, p, doc),
		"Deprecation": pages.deprecationHTML(c, p.Deprecated),
		"Manage":      pages.manageLink(c, p),
	})
}

// withoutTitle drops a rendered document's leading <h1> when it says what
// the page's own heading says (case aside), so the title is not shown
// twice. A heading with markup in it, or one that says something else,
// stays.
func withoutTitle(doc template.HTML, title string) template.HTML {
	s := string(doc)
	rest, ok := strings.CutPrefix(s, "<h1>")
	if !ok {
		return doc
	}
	inner, after, ok := strings.Cut(rest, "</h1>")
	if !ok || strings.Contains(inner, "<") {
		return doc
	}
	if !strings.EqualFold(strings.TrimSpace(html.UnescapeString(inner)), strings.TrimSpace(title)) {
		return doc
	}
	return template.HTML(strings.TrimLeft(after, "\n"))
}

// allYankedPage shows a package whose every version is yanked: there is no
// latest version to show or install, but every version stays reachable by
// its own page (docs/protocol.md, Yanking).
func (pages *Pages) allYankedPage(c *gin.Context, p *registry.Package, versions []registry.Version) {
	rows := make([]versionView, len(versions))
	for i := range versions {
		rows[i] = pages.viewVersion(p, &versions[i])
	}
	shown := versionView{Name: p.Name, Description: p.Description, Scheme: p.Scheme}
	pages.render(c, http.StatusOK, "package.html", "", gin.H{
		"Package":     pages.viewPackage(p),
		"Shown":       &shown,
		"AllYanked":   true,
		"Versions":    rows,
		"Deprecation": pages.deprecationHTML(c, p.Deprecated),
		"Manage":      pages.manageLink(c, p),
	})
}
