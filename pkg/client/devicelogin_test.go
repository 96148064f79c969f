package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/pkg/client"
	"github.com/pact-registry/pact/pkg/wire"
)

// browserDecides logs username in to the registry's pages and decides the
// login of userCode there, as a person does in a browser.
func browserDecides(t *testing.T, base, username, userCode string, form url.Values) {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(path string, values url.Values) int {
		req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(values.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := post("/login", url.Values{"login": {username}, "password": {"correct horse battery staple"}}); st != http.StatusSeeOther {
		t.Fatalf("log-in: %d", st)
	}
	form.Set("code", userCode)
	if st := post("/login/device/decide", form); st != http.StatusSeeOther {
		t.Fatalf("deciding the login: %d", st)
	}
}

// WaitDeviceLogin polls every interval until the login is decided, waits
// 5 seconds longer once told to slow down, and answers the token of an
// approval; a denial, or a code already collected, ends it with the
// registry's refusal and its code.
func TestWaitDeviceLogin(t *testing.T) {
	srv := client.SharedPactd()
	username := fmt.Sprintf("user%d", userCounter.Add(1))
	if _, err := srv.CreateUserWithToken(username); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	t.Run("approved", func(t *testing.T) {
		c, err := client.New(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		login, err := c.StartDeviceLogin(ctx, "laptop")
		if err != nil {
			t.Fatal(err)
		}
		if login.Interval != 5 || login.ExpiresIn != 600 || login.VerificationURI != srv.URL+"/login/device" ||
			login.VerificationURIComplete != srv.URL+"/login/device?code="+login.UserCode {
			t.Fatalf("StartDeviceLogin = %+v", login)
		}
		// The sleeps take no time: the second poll comes at once and is
		// told to slow down; the login is approved during the third wait.
		var waits []time.Duration
		client.SetSleep(c, func(_ context.Context, d time.Duration) error {
			waits = append(waits, d)
			if len(waits) == 3 {
				browserDecides(t, srv.URL, username, login.UserCode, url.Values{"decision": {"approve"}, "scope": {"yank"}})
			}
			return nil
		})
		tok, err := c.WaitDeviceLogin(ctx, login)
		if err != nil {
			t.Fatalf("WaitDeviceLogin: %v", err)
		}
		if want := []time.Duration{5 * time.Second, 5 * time.Second, 10 * time.Second}; !slices.Equal(waits, want) {
			t.Errorf("waits = %v, want %v (5 s more after slow_down)", waits, want)
		}
		if !strings.HasPrefix(tok.Token, "pact_") || tok.Name != "laptop" || tok.Scopes == nil || !slices.Equal(*tok.Scopes, []string{"yank"}) {
			t.Errorf("token = %+v", tok)
		}
		// Once: the next wait ends at its first poll.
		_, err = c.WaitDeviceLogin(ctx, login)
		var apiErr *client.APIError
		if !errors.As(err, &apiErr) || apiErr.Code != wire.DeviceExpiredToken || apiErr.StatusCode != http.StatusBadRequest {
			t.Errorf("waiting again: %v, want expired_token", err)
		}
	})

	t.Run("denied", func(t *testing.T) {
		c, err := client.New(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		login, err := c.StartDeviceLogin(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		client.SetSleep(c, func(context.Context, time.Duration) error {
			browserDecides(t, srv.URL, username, login.UserCode, url.Values{"decision": {"deny"}})
			return nil
		})
		_, err = c.WaitDeviceLogin(ctx, login)
		var apiErr *client.APIError
		if !errors.As(err, &apiErr) || apiErr.Code != wire.DeviceAccessDenied || apiErr.StatusCode != http.StatusForbidden {
			t.Errorf("WaitDeviceLogin of a denied login: %v, want access_denied", err)
		}
	})
}
