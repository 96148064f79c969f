package main

import (
	"context"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/pact-registry/pact/internal/hooktest"
	"github.com/pact-registry/pact/internal/pactdtest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/client"
)

// hookSecret is the secret of the scripts' receiver.
const hookSecret = "script-secret-0123456789"

type receiverKey struct{}

// TestHookScripts runs testdata/hooks/*.txtar as TestScripts does, on a
// pactd that lets webhooks reach loopback (--webhook-allow-private), with
// a receiver at $RECEIVER_URL that checks signatures under $HOOK_SECRET;
// "received N" waits until it has answered N deliveries, "delivered HOOK
// N" until pactd has recorded N of HOOK's deliveries as delivered.
func TestHookScripts(t *testing.T) {
	t.Parallel()
	bin := buildPactd(t)
	sshtest.Require(t, "ssh-agent", "ssh-add", "ssh-keygen", "curl")
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/hooks",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			h := hooktest.NewHandler(hookSecret, hooktest.Behaviour{})
			recv := httptest.NewServer(h)
			env.Defer(recv.Close)
			env.Values[receiverKey{}] = h
			srv, err := pactdtest.Start(bin, env.WorkDir, "--webhook-allow-private")
			if err != nil {
				return err
			}
			env.Defer(func() {
				if err := srv.Stop(); err != nil {
					env.T().Log(err)
				}
			})
			env.Setenv("RECEIVER_URL", recv.URL)
			env.Setenv("HOOK_SECRET", hookSecret)
			return setupScriptOn(env, srv)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"json":      cmdJSON,
			"jsonenv":   cmdJSONEnv,
			"exitcode":  cmdExitCode,
			"received":  cmdReceived,
			"delivered": cmdDelivered,
		},
	})
}

// cmdReceived waits up to 20s until the receiver has answered N
// deliveries, each signed with the secret:
//
//	received N
func cmdReceived(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: received N")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	h := ts.Value(receiverKey{}).(*hooktest.Handler)
	deadline := time.Now().Add(20 * time.Second)
	for len(h.Deliveries()) < n {
		if time.Now().After(deadline) {
			ts.Fatalf("the receiver answered %d deliveries in 20s, want %d", len(h.Deliveries()), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, d := range h.Deliveries() {
		if d.SignatureError != "" {
			ts.Fatalf("delivery %s: %s", d.ID, d.SignatureError)
		}
		ts.Logf("received %s %s %s/%s@%s", d.ID, d.Event, d.Payload.Owner, d.Payload.Package, d.Payload.Version)
	}
}

// cmdDelivered waits up to 20s until pactd ($SERVER_URL, as $TOKEN's
// account) has recorded N deliveries of hook HOOK as delivered: it records
// an answer after the receiver has given it, so "received" alone can come
// first (TestHookScripts/hook once listed a delivery the receiver had
// answered as still pending).
//
//	delivered HOOK N
func cmdDelivered(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: delivered HOOK N")
	}
	hook, err := strconv.ParseInt(args[0], 10, 64)
	ts.Check(err)
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	c, err := client.New(ts.Getenv("SERVER_URL"), client.WithToken(ts.Getenv("TOKEN")))
	ts.Check(err)
	delivered := 0
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		_, deliveries, err := c.HookDeliveries(context.Background(), hook)
		ts.Check(err)
		delivered = 0
		for _, d := range deliveries {
			if d.State == "delivered" {
				delivered++
			}
		}
		if delivered >= n {
			return
		}
	}
	ts.Fatalf("pactd recorded %d deliveries of hook %d as delivered in 20s, want %d", delivered, hook, n)
}
