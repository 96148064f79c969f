package api

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// Yanking, un-yanking, deprecating and a package's settings (docs/protocol.md,
// Yanking, Deprecating a package and Trusted publishing only). The owner
// check is the domain's.

// maxLifecycleBodyBytes bounds the bodies of yank and deprecate: a reason
// or message of a few hundred characters, even fully \u-escaped, is far
// below it.
const maxLifecycleBodyBytes = 16 << 10

func (s *Server) yankVersion(c *gin.Context) {
	var body wire.YankRequest
	// The body is optional: a yank without a reason may send none.
	if c.Request.ContentLength != 0 {
		if err := s.decodeJSONBodyLimited(c, &body, maxLifecycleBodyBytes); err != nil {
			s.shared.Fail(c, err)
			return
		}
	}
	p, v, err := s.svc.YankVersion(c, account(c), c.Param("owner"), c.Param("pack"), c.Param("version"), deref(body.Reason))
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusOK, wire.YankResult{OK: true, Package: s.presentPackage(p), Version: s.presentVersion(p, v)})
}

// unyankVersion takes no body; one sent along is not read.
func (s *Server) unyankVersion(c *gin.Context) {
	p, v, err := s.svc.UnyankVersion(c, account(c), c.Param("owner"), c.Param("pack"), c.Param("version"))
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusOK, wire.YankResult{OK: true, Package: s.presentPackage(p), Version: s.presentVersion(p, v)})
}

func (s *Server) deprecatePackage(c *gin.Context) {
	var body wire.DeprecateRequest
	if err := s.decodeJSONBodyLimited(c, &body, maxLifecycleBodyBytes); err != nil {
		s.shared.Fail(c, err)
		return
	}
	if body.Message == nil {
		// Required, so that a body that lost its field does not silently
		// undo a deprecation.
		s.shared.Fail(c, registry.Errorf(registry.Invalid, `message is required: the deprecation message, or "" to undo the deprecation`))
		return
	}
	p, err := s.svc.DeprecatePackage(c, account(c), c.Param("owner"), c.Param("pack"), *body.Message)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusOK, wire.DeprecateResult{OK: true, Package: s.presentPackage(p)})
}

// updatePackage changes a package's settings: trusted_publishing_only, the
// only one so far, is required.
func (s *Server) updatePackage(c *gin.Context) {
	var body wire.PackageSettingsRequest
	if err := s.decodeStrictLimited(c, &body, wire.PackageSettingsRequestFields, "a package's one setting is trusted_publishing_only", maxLifecycleBodyBytes); err != nil {
		s.shared.Fail(c, err)
		return
	}
	if body.TrustedPublishingOnly == nil {
		s.shared.Fail(c, registry.Errorf(registry.Invalid, "trusted_publishing_only is required: true lets only tokens exchanged through a trusted publisher publish, false lets tokens and SSH-signed publishes publish again"))
		return
	}
	p, err := s.svc.SetTrustedPublishingOnly(c, account(c), apiToken(c), c.Param("owner"), c.Param("pack"), *body.TrustedPublishingOnly)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusOK, wire.PackageSettingsResult{OK: true, Package: s.presentPackage(p)})
}

// The headers that mark a raw document of a yanked version.
const (
	headerYanked     = "Pact-Yanked"
	headerYankReason = "Pact-Yank-Reason"
)

// markYanked sets Pact-Yanked: true, and Pact-Yank-Reason when the owner
// gave one, on the answer serving v.
func markYanked(h http.Header, v *registry.Version) {
	if !v.Yanked() {
		return
	}
	h.Set(headerYanked, "true")
	if v.YankReason != "" {
		h.Set(headerYankReason, headerText(v.YankReason))
	}
}

// headerText makes any text a safe header value that reads as itself where
// it is plain: printable ASCII stays, every other byte (and '%') is
// percent-encoded (UTF-8), so any URL decoder gives the text back.
func headerText(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '%' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
