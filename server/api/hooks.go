package api

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// Webhooks (docs/protocol.md, Webhooks): every route needs the hooks
// scope; the domain decides whose hooks the caller manages.

// maxHookBodyBytes bounds POST /api/hooks: a URL of 2,000 characters, a
// secret of 256 bytes and the events fit in well under it.
const maxHookBodyBytes = 16 << 10

func (s *Server) createHook(c *gin.Context) {
	var body wire.HookRequest
	if err := s.decodeStrictLimited(c, &body, wire.HookRequestFields,
		"a hook has owner, package, url, secret and events", maxHookBodyBytes); err != nil {
		s.shared.Fail(c, err)
		return
	}
	h, err := s.svc.CreateHook(c, account(c), apiToken(c), registry.HookSpec{Owner: deref(body.Owner), Package: deref(body.Package),
		URL: deref(body.URL), Secret: deref(body.Secret), Events: body.Events})
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusCreated, wire.HookResult{OK: true, Hook: presentHook(h)})
}

func (s *Server) listHooks(c *gin.Context) {
	hooks, err := s.svc.ListHooks(c, account(c), apiToken(c), c.Query("owner"))
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	out := make([]wire.Hook, len(hooks))
	for i := range hooks {
		out[i] = presentHook(&hooks[i])
	}
	httpx.JSON(c, http.StatusOK, wire.HookList{OK: true, Hooks: out})
}

// hookID reads the :id of a hook route; a malformed one names no hook.
func hookID(c *gin.Context, param string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(param), 10, 64)
	if err != nil || id <= 0 {
		return 0, registry.Errorf(registry.NotFound, "no %s %q", param, c.Param(param))
	}
	return id, nil
}

func (s *Server) deleteHook(c *gin.Context) {
	id, err := hookID(c, "id")
	if err == nil {
		err = s.svc.DeleteHook(c, account(c), apiToken(c), id)
	}
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusOK, wire.OK{OK: true})
}

func (s *Server) listHookDeliveries(c *gin.Context) {
	id, err := hookID(c, "id")
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	h, list, err := s.svc.HookDeliveries(c, account(c), apiToken(c), id)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	out := make([]wire.HookDelivery, len(list))
	for i := range list {
		out[i] = presentHookDelivery(&list[i])
	}
	httpx.JSON(c, http.StatusOK, wire.HookDeliveryList{OK: true, Hook: presentHook(h), Deliveries: out})
}

func (s *Server) redeliverHook(c *gin.Context) {
	id, err := hookID(c, "id")
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	delivery, err := hookID(c, "delivery")
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	d, err := s.svc.Redeliver(c, account(c), apiToken(c), id, delivery)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusOK, wire.HookDeliveryResult{OK: true, Delivery: presentHookDelivery(d)})
}

func presentHook(h *registry.Hook) wire.Hook {
	events := h.Events
	if events == nil {
		events = []string{}
	}
	return wire.Hook{ID: h.ID, Owner: h.Owner, Package: h.Package, URL: h.URL, Events: events, CreatedAt: wire.Time(h.CreatedAt),
		FailingSince: wire.OptionalTime(h.FailingSince), DisabledAt: wire.OptionalTime(h.DisabledAt), DisabledNote: h.DisabledNote}
}

func presentHookDelivery(d *registry.HookDelivery) wire.HookDelivery {
	out := wire.HookDelivery{ID: d.ID, Event: d.Event, Owner: d.Owner, Package: d.Package, Version: d.Version, LogIndex: d.LogIndex,
		State: d.State, CreatedAt: wire.Time(d.CreatedAt), Attempts: d.Attempts, Time: wire.OptionalTime(d.LastAttemptAt),
		Status: d.LastStatus, DurationMS: d.LastDuration.Milliseconds(), Error: d.LastError}
	if d.State == registry.DeliveryPending {
		out.NextAttemptAt = wire.OptionalTime(&d.NextAttemptAt)
	}
	return out
}
