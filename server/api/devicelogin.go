package api

import (
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// Logging in the command line through the browser (docs/protocol.md,
// Logging in through the browser; registry/device.go): pact login begins a
// login here and polls it, with no token; the user approves it on the
// page /login/device (server/web).

// maxDeviceBodyBytes bounds both bodies: a token name or a device code.
const maxDeviceBodyBytes = 4 << 10

func (s *Server) startDeviceLogin(c *gin.Context) {
	// Each login is a row for ten minutes: an address may begin a few,
	// then one a minute (Limits.DeviceLogins).
	if ok, after := s.limitDevice.allow(httpx.AddressKey(c.ClientIP()), s.svc.Now()); !ok {
		s.shared.Fail(c, httpx.TooManyRequests("for new logins from this address", after))
		return
	}
	var body wire.DeviceLoginRequest
	if c.Request.ContentLength != 0 { // the body is optional
		if err := s.decodeStrictLimited(c, &body, wire.DeviceLoginRequestFields, "a login request has name and scopes", maxDeviceBodyBytes); err != nil {
			s.shared.Fail(c, err)
			return
		}
	}
	start, err := s.svc.StartDeviceLogin(c, deref(body.Name), body.Scopes, registry.SessionClient{UserAgent: c.Request.UserAgent(), IP: c.ClientIP()})
	if errors.Is(err, registry.ErrDeviceLoginsBlockFull) {
		err = httpx.RetryLater(registry.ErrDeviceLoginsBlockFull, time.Minute)
	}
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	verify := s.cfg.BaseURL + "/login/device"
	c.Header("Cache-Control", cacheSecret)
	httpx.JSON(c, http.StatusOK, wire.DeviceLogin{OK: true, DeviceCode: start.DeviceCode, UserCode: start.UserCode,
		VerificationURI: verify, VerificationURIComplete: verify + "?code=" + url.QueryEscape(start.UserCode),
		ExpiresIn: int(registry.DeviceLoginLifetime / time.Second), Interval: int(registry.DevicePollInterval / time.Second)})
}

func (s *Server) pollDeviceLogin(c *gin.Context) {
	var body wire.DeviceTokenRequest
	if err := s.decodeStrictLimited(c, &body, wire.DeviceTokenRequestFields, "a poll has device_code", maxDeviceBodyBytes); err != nil {
		s.shared.Fail(c, err)
		return
	}
	secret, t, err := s.svc.ExchangeDeviceCode(c, body.DeviceCode)
	if errors.Is(err, registry.ErrSlowDown) {
		err = httpx.RetryLater(registry.ErrSlowDown, registry.DevicePollInterval)
	}
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	c.Header("Cache-Control", cacheSecret)
	httpx.JSON(c, http.StatusOK, presentCreatedToken(t, secret))
}
