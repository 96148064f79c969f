package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/soak"
	"github.com/pact-registry/pact/server"
	"github.com/pact-registry/pact/server/registry"
)

// beginLoginFrom begins a login of the command line from the loopback
// address client connects from, as pact login does, and answers the
// status and body.
func beginLoginFrom(t *testing.T, client *http.Client, base string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/api/login/device", nil)
	req.Header.Set("User-Agent", "pact/1.2.3")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST /api/login/device: %v", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("POST /api/login/device answered %d %q", resp.StatusCode, raw)
	}
	if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
		t.Errorf("a 429 without Retry-After: %s", raw)
	}
	return resp.StatusCode, body
}

// The review's flood: about 1,000 addresses, each beginning the 10 logins
// its per-address limit allows, fill the 10,000 logins the registry keeps
// waiting; an address block (here a /24 of 127.0.0.0/8) holds at most 100
// of them, and a pact login from another block still starts: the oldest
// login of the fullest block gives way. On PostgreSQL the flood goes to two
// replicas of one database. Unless the tests soak (internal/soak, as CI
// does), the registry keeps 1,000 waiting and 10 blocks fill them.
func TestDeviceLoginFloodLeavesOtherBlocksTheirLogin(t *testing.T) {
	t.Parallel()
	const addressesPerBlock, perAddress = 10, 10
	capacity := soak.Size(registry.MaxPendingDeviceLogins, 1000)
	blocks := capacity / (addressesPerBlock * perAddress) // 100 (10,000 logins), or 10
	if addressesPerBlock*perAddress != registry.MaxPendingDeviceLoginsPerBlock {
		t.Fatalf("a block floods %d logins, the registry keeps %d of one", addressesPerBlock*perAddress, registry.MaxPendingDeviceLoginsPerBlock)
	}
	servertest.Backends(t, func(t *testing.T, dsn string) {
		opts := servertest.Options{Limits: server.Limits{DeviceLogins: server.DefaultLimits.DeviceLogins}, MaxPendingDeviceLogins: capacity}
		replicas := []*servertest.Env{servertest.Start(t, dsn, opts)}
		if strings.HasPrefix(dsn, "postgres") {
			replicas = append(replicas, servertest.Start(t, dsn, opts))
		}
		type address struct {
			ip  string
			url string
		}
		work := make(chan address)
		var wg sync.WaitGroup
		var mu sync.Mutex
		refused := map[int]int{}
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for a := range work {
					client := fromAddress(t, a.ip)
					for range perAddress {
						if status, _ := beginLoginFrom(t, client, a.url); status != http.StatusOK {
							mu.Lock()
							refused[status]++
							mu.Unlock()
						}
					}
					client.CloseIdleConnections()
				}
			}()
		}
		for b := range blocks {
			for a := range addressesPerBlock {
				work <- address{fmt.Sprintf("127.1.%d.%d", b, a+1), replicas[b%len(replicas)].URL}
			}
		}
		close(work)
		wg.Wait()
		if len(refused) > 0 {
			t.Logf("of the flood's logins, refused (by status): %v", refused)
		}

		// One more address of a flooded block: its block is full.
		last := replicas[len(replicas)-1]
		status, body := beginLoginFrom(t, fromAddress(t, "127.1.0.11"), last.URL)
		if status != http.StatusTooManyRequests || body["code"] != "device_logins_full" {
			t.Errorf("a login from a block with 100 waiting: %d %v, want 429 device_logins_full", status, body)
		}

		// pact login from another block starts, on each replica.
		for i, env := range replicas {
			status, body := beginLoginFrom(t, fromAddress(t, fmt.Sprintf("127.2.%d.1", i)), env.URL)
			if status != http.StatusOK || body["user_code"] == nil {
				t.Fatalf("pact login from another block during the flood: %d %v", status, body)
			}
			code, _ := body["user_code"].(string)
			if _, err := env.Service.PendingDeviceLogin(t.Context(), code); err != nil {
				t.Errorf("the login begun from another block does not wait for its approval: %v", err)
			}
		}

		// The flood filled the registry's cap, and the logins from other
		// blocks took the places of flooders' (on PostgreSQL, replicas
		// counting at the same moment may pass it by a few).
		var waiting int
		if err := replicas[0].Store.Tx(t.Context(), func(tx registry.Tx) (err error) {
			waiting, err = tx.CountDeviceLogins(replicas[0].Clock.Now())
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if waiting < capacity || (len(replicas) == 1 && waiting != capacity) || waiting > capacity+16 {
			t.Errorf("%d logins wait after the flood and the other blocks' logins; the registry keeps %d", waiting, capacity)
		}
	})
}
