package server

import (
	"embed"
	"html/template"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/registry"
)

//go:embed templates/*.html
var templateFS embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{}).ParseFS(templateFS, "templates/*.html"))

func (s *Server) routeWeb(e *gin.Engine) {
	e.NoRoute(func(c *gin.Context) { s.notFoundPage(c) })
	e.NoMethod(func(c *gin.Context) {
		c.String(http.StatusMethodNotAllowed, "method not allowed\n")
	})
	e.GET("/:owner", s.ownerKeysOrPage)
	e.GET("/:owner/:pack", s.packagePage)
}

func (s *Server) render(c *gin.Context, status int, name string, data any) {
	c.Header("Content-Type", "text/html; charset=utf-8")
	c.Status(status)
	if err := pages.ExecuteTemplate(c.Writer, name, data); err != nil {
		s.log.Error("rendering page", "template", name, "error", err.Error())
	}
}

func (s *Server) notFoundPage(c *gin.Context) {
	s.render(c, http.StatusNotFound, "notfound.html", gin.H{"Path": c.Request.URL.Path})
}

// ownerKeysOrPage serves /{owner}.keys (the account's public keys as
// authorized_keys lines, as GitHub does) and the owner's page.
func (s *Server) ownerKeysOrPage(c *gin.Context) {
	owner, isKeys := strings.CutSuffix(c.Param("owner"), ".keys")
	if !isKeys {
		s.notFoundPage(c)
		return
	}
	acct, err := s.svc.Store.AccountByUsername(c, strings.ToLower(owner))
	if err != nil {
		s.fail(c, err)
		return
	}
	keys, err := s.svc.Store.ListSSHKeys(c, acct.ID)
	if err != nil {
		s.fail(c, err)
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

func (s *Server) packagePage(c *gin.Context) {
	p, versions, err := s.svc.PackageDetail(c, c.Param("owner"), c.Param("pack"))
	if registry.IsCode(err, registry.NotFound) {
		s.notFoundPage(c)
		return
	}
	if err != nil {
		s.fail(c, err)
		return
	}
	doc, err := s.svc.Document(c, p.OwnerSlug, p.PackSlug, "")
	if err != nil {
		s.fail(c, err)
		return
	}
	vs := make([]versionJSON, len(versions))
	for i := range versions {
		vs[i] = s.presentVersion(p, &versions[i])
	}
	s.render(c, http.StatusOK, "package.html", gin.H{
		"Package":  s.presentPackage(p),
		"Versions": vs,
		"Document": string(doc.Content),
	})
}
