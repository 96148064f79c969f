// Package webhook delivers the webhooks' queued deliveries
// (docs/protocol.md, Webhooks; registry/hook.go): it claims due ones from
// the database for a lease, POSTs each signed body to its hook's URL
// through a dialer that refuses addresses hooks may not reach (the address
// actually dialled, so a name that resolves to a public address when the
// hook is made and to a private one later gets nowhere), and records the
// outcome, from which the domain decides the retry.
//
// The workers are shared fairly (docs/operations.md, Webhooks): each takes
// a new delivery as soon as it is free, the claim goes round the users who
// made the hooks and gives none more than PerUser in flight across every
// replica, and a hook whose receiver keeps answering slowly gets half the
// timeout (registry.Hook.Timeout).
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/pact-registry/pact/pkg/hooksig"
	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/registry"
)

// Config tunes a Deliverer; the zero value is usable.
type Config struct {
	// Timeout bounds one delivery: connecting, sending, and reading up to
	// registry.MaxHookAnswerBytes of the answer. 0: registry.DefaultHookTimeout.
	Timeout time.Duration
	// Poll is how often the queue is read for due deliveries. 0: a second.
	Poll time.Duration
	// Concurrency is how many deliveries are sent at once. 0: 8.
	Concurrency int
	// PerUser is how many deliveries of the hooks one user made may be in
	// flight at once, across every replica on the database. 0:
	// registry.DefaultHookDeliveriesPerUser.
	PerUser int
	// UserAgent names pactd in each delivery.
	UserAgent string
	Logger    *slog.Logger
}

// Deliverer sends the queued deliveries of one pactd process; any number
// of processes on one database share the queue.
type Deliverer struct {
	svc    registry.HookSender
	cfg    Config
	client *http.Client
	// free is signalled when a worker of Run finishes, to claim again at
	// once.
	free chan struct{}
}

// New makes a Deliverer for svc's queue.
func New(svc registry.HookSender, cfg Config) *Deliverer {
	if cfg.Timeout <= 0 {
		cfg.Timeout = registry.DefaultHookTimeout
	}
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 8
	}
	if cfg.PerUser <= 0 {
		cfg.PerUser = registry.DefaultHookDeliveriesPerUser
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "pactd-webhook"
	}
	dialer := &net.Dialer{Timeout: cfg.Timeout, Control: func(network, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		ip, err := netip.ParseAddr(host)
		if err != nil {
			return err
		}
		return svc.CheckHookAddress(ip)
	}}
	transport := &http.Transport{
		// No proxy from the environment: the address checked must be the
		// receiver's.
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
	}
	client := &http.Client{Transport: transport, Timeout: cfg.Timeout,
		// A redirect is an answer, not followed: its target was never
		// checked when the hook was made.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &Deliverer{svc: svc, cfg: cfg, client: client, free: make(chan struct{}, cfg.Concurrency)}
}

// lease is how long a claimed delivery is left to its worker: the
// delivery's timeout and time to record it.
func (d *Deliverer) lease() time.Duration { return d.cfg.Timeout + 5*time.Second }

// Run delivers until ctx ends, with up to Concurrency workers: whenever
// some are free, it claims as many deliveries as are free, so a slow
// delivery holds only its own worker.
func (d *Deliverer) Run(ctx context.Context) {
	t := time.NewTicker(d.cfg.Poll)
	defer t.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	busy := 0
	for {
		for busy < d.cfg.Concurrency {
			want := d.cfg.Concurrency - busy
			claims, err := d.svc.ClaimHookDeliveries(ctx, d.lease(), want, d.cfg.PerUser)
			if err != nil {
				if !errors.Is(err, registry.ErrStoreUnreachable) && ctx.Err() == nil {
					d.cfg.Logger.Warn("claiming webhook deliveries", "error", err.Error())
				}
				break
			}
			for i := range claims {
				busy++
				wg.Add(1)
				go func() {
					defer wg.Done()
					d.deliver(ctx, &claims[i])
					d.free <- struct{}{}
				}()
			}
			if len(claims) < want {
				break // no more due, or none a user's share allows
			}
		}
		select {
		case <-ctx.Done():
			// The workers still sending end with ctx; their
			// deliveries are taken again when the lease ends.
			for busy > 0 {
				<-d.free
				busy--
			}
			return
		case <-d.free:
			busy--
		case <-t.C:
		}
	}
}

// RunOnce claims up to Concurrency due deliveries, sends them, records
// how each went and answers how many it claimed: a step of Run for
// tests, which waits for all it claimed.
func (d *Deliverer) RunOnce(ctx context.Context) (int, error) {
	claims, err := d.svc.ClaimHookDeliveries(ctx, d.lease(), d.cfg.Concurrency, d.cfg.PerUser)
	if err != nil {
		return 0, err
	}
	var wg sync.WaitGroup
	for i := range claims {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.deliver(ctx, &claims[i])
		}()
	}
	wg.Wait()
	return len(claims), nil
}

func (d *Deliverer) deliver(ctx context.Context, c *registry.HookClaim) {
	log := d.cfg.Logger.With("hook", c.Hook.ID, "delivery", c.Delivery.ID)
	entry, proof, err := d.svc.HookPayload(ctx, &c.Delivery)
	if err != nil {
		// Not a failure of the receiver: tried again soon, no attempt
		// counted.
		wait := 2 * time.Second
		if !errors.Is(err, registry.ErrHookNotYet) {
			log.Warn("making a webhook delivery", "error", err.Error())
			wait = 10 * time.Second
		}
		if err := d.svc.PostponeHookDelivery(ctx, c, wait); err != nil && ctx.Err() == nil {
			log.Warn("postponing a webhook delivery", "error", err.Error())
		}
		return
	}
	dv := &c.Delivery
	body, err := json.Marshal(wire.HookPayload{Event: dv.Event, Kind: dv.Kind, Delivery: strconv.FormatInt(dv.ID, 10), HookID: c.Hook.ID,
		Time: wire.Time(dv.CreatedAt), Owner: dv.Owner, Package: dv.Package, Version: dv.Version, LogIndex: dv.LogIndex,
		Entry: entry, Proof: proof, Message: dv.Message})
	if err != nil {
		log.Error("encoding a webhook delivery", "error", err.Error())
		return
	}
	outcome := d.send(ctx, c, body)
	if ctx.Err() != nil {
		return // shutting down: the lease ends and the delivery is tried again
	}
	disabled, err := d.svc.FinishHookDelivery(ctx, c, outcome)
	if err != nil {
		log.Warn("recording a webhook delivery", "error", err.Error())
		return
	}
	if disabled != "" {
		log.Warn("webhook disabled", "owner", c.Hook.Owner, "note", disabled)
	}
	if outcome.Error != "" {
		log.Info("webhook delivery failed", "status", outcome.Status, "error", outcome.Error)
	}
}

// send POSTs body to c's hook and answers what came of it, within the
// hook's timeout (registry.Hook.Timeout).
func (d *Deliverer) send(ctx context.Context, c *registry.HookClaim, body []byte) registry.HookOutcome {
	out := d.post(ctx, c, body)
	// Slow: at least half the full timeout, which is the shortened
	// timeout, so that a hook given it is slow again exactly when it
	// misses it.
	out.Slow = out.Duration >= d.cfg.Timeout/2
	return out
}

func (d *Deliverer) post(ctx context.Context, c *registry.HookClaim, body []byte) registry.HookOutcome {
	timeout, shortened := c.Hook.Timeout(d.cfg.Timeout)
	within := timeout.String() + " (--webhook-timeout)"
	if shortened {
		within = fmt.Sprintf("%s (half of --webhook-timeout, as its last %d answers or more each took %s or longer)", timeout, registry.HookSlowStreak, timeout)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Hook.URL, bytes.NewReader(body))
	if err != nil {
		return registry.HookOutcome{Error: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", d.cfg.UserAgent)
	req.Header.Set(wire.HeaderHookEvent, c.Delivery.Event)
	req.Header.Set(wire.HeaderHookDelivery, strconv.FormatInt(c.Delivery.ID, 10))
	req.Header.Set(wire.HeaderHookSignature, hooksig.Sign(c.Hook.Secret, time.Now(), body))
	resp, err := d.client.Do(req)
	if err != nil {
		var netErr net.Error
		var dnsErr *net.DNSError
		switch {
		// A refused address and a name that does not resolve are told
		// without the address or the resolver's: the hook's owner reads
		// this.
		case errors.Is(err, registry.ErrHookAddress):
			return registry.HookOutcome{Duration: time.Since(start), Error: registry.ErrHookAddress.Error()}
		case errors.As(err, &dnsErr):
			return registry.HookOutcome{Duration: time.Since(start), Error: "the receiver's host does not resolve"}
		// The request's deadline and the transport's header timeout are
		// both the timeout: whichever fires first, the same words.
		case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout():
			return registry.HookOutcome{Duration: max(time.Since(start), timeout), Error: "no answer within " + within}
		}
		return registry.HookOutcome{Duration: time.Since(start), Error: err.Error()}
	}
	defer resp.Body.Close()
	// At most MaxHookAnswerBytes of the answer are read, within the
	// timeout; the rest is left unread.
	_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, registry.MaxHookAnswerBytes))
	out := registry.HookOutcome{Status: resp.StatusCode, Duration: time.Since(start)}
	if err != nil {
		out.Error = "reading the answer: " + err.Error()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			out.Error = "the answer did not end within " + within
		}
	}
	return out
}
