package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/apitest"
	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server"
)

// startDeviceLogin begins a login of the command line as pact login does,
// and answers its device code and user code.
func startDeviceLogin(t *testing.T, env *servertest.Env, body any) (deviceCode, userCode string) {
	t.Helper()
	var resp *apitest.Response
	if body == nil {
		resp = env.API.Post("/api/login/device", "application/json", nil, "User-Agent: pact/1.2.3")
	} else {
		resp = env.API.PostJSON("/api/login/device", body, "User-Agent: pact/1.2.3")
	}
	wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	got := resp.JSON(t)
	deviceCode, _ = got["device_code"].(string)
	userCode, _ = got["user_code"].(string)
	return deviceCode, userCode
}

// pollDevice is one poll of the command line.
func pollDevice(env *servertest.Env, deviceCode string) *apitest.Response {
	return env.API.PostJSON("/api/login/device/token", map[string]any{"device_code": deviceCode})
}

// wantDeviceRefusal checks a poll refused with status and the code a
// client acts on.
func wantDeviceRefusal(t *testing.T, resp *apitest.Response, status int, code string) {
	t.Helper()
	body := resp.JSON(t)
	if resp.Status != status || body["code"] != code || body["ok"] != false || body["error"] == "" {
		t.Fatalf("poll = %d %v, want %d with code %q", resp.Status, body, status, code)
	}
}

// The whole login of the command line through the browser: pact login
// begins it and polls, the user approves on /login/device with the
// scopes, packages and expiry of the dashboard's token form, and the next
// poll collects that token, once.
func TestDeviceLoginApprovedInTheBrowser(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		resp := env.API.PostJSON("/api/login/device", map[string]any{"name": "pact on laptop"}, "User-Agent: pact/1.2.3")
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("Cache-Control = %q, want no-store", cc)
		}
		start := resp.JSON(t)
		deviceCode, _ := start["device_code"].(string)
		userCode, _ := start["user_code"].(string)
		if !regexp.MustCompile(`^[0-9A-Za-z]{43}$`).MatchString(deviceCode) ||
			!regexp.MustCompile(`^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$`).MatchString(userCode) ||
			start["verification_uri"] != env.URL+"/login/device" ||
			start["verification_uri_complete"] != env.URL+"/login/device?code="+userCode ||
			start["expires_in"] != float64(600) || start["interval"] != float64(5) {
			t.Fatalf("POST /api/login/device = %v", start)
		}

		// Not approved yet; and a poll sooner than the interval is told to
		// slow down, with when to come back.
		wantDeviceRefusal(t, pollDevice(env, deviceCode), http.StatusBadRequest, "authorization_pending")
		env.Clock.Advance(4 * time.Second)
		tooSoon := pollDevice(env, deviceCode)
		wantDeviceRefusal(t, tooSoon, http.StatusTooManyRequests, "slow_down")
		if ra := tooSoon.Header.Get("Retry-After"); ra != "5" {
			t.Errorf("slow_down's Retry-After = %q, want 5", ra)
		}
		env.Clock.Advance(time.Second)
		wantDeviceRefusal(t, pollDevice(env, deviceCode), http.StatusBadRequest, "authorization_pending")

		// The user approves in the browser, typing the code as they like.
		browser := servertest.NewWebClient(t, env.URL)
		browser.Login(alice)
		servertest.WantPage(t, browser.Get("/login/device?code="+url.QueryEscape(userCode)), http.StatusOK, `value="`+userCode+`"`)
		typed := strings.ToLower(strings.ReplaceAll(userCode, "-", " "))
		servertest.WantPage(t, browser.Post("/login/device", url.Values{"code": {typed}}), http.StatusOK,
			userCode, "pact on laptop", "pact/1.2.3", "Approve", "Deny")
		browser.ApproveDevice(typed, url.Values{"name": {"laptop"}, "scope": {"publish", "yank"},
			"packages": {"widget-*"}, "expires_in_days": {"30"}})
		approvedAt := env.Clock.Now()

		env.Clock.Advance(5 * time.Second)
		resp = pollDevice(env, deviceCode)
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("Cache-Control of the token = %q, want no-store", cc)
		}
		got := resp.JSON(t)
		secret, _ := got["token"].(string)
		if !strings.HasPrefix(secret, "pact_") || got["name"] != "laptop" || fmt.Sprint(got["scopes"]) != "[publish yank]" ||
			fmt.Sprint(got["packages"]) != "[widget-*]" || got["revoked"] != false {
			t.Fatalf("the collected token = %v", got)
		}
		if want := approvedAt.AddDate(0, 0, 30).UTC().Format(time.RFC3339); got["expires_at"] != want {
			t.Errorf("expires_at = %v, want %s (30 days from the approval)", got["expires_at"], want)
		}
		me := env.API.Get("/api/me", bearer(secret))
		wantStatus(t, me.Status, http.StatusOK, me.Body)
		if user := me.JSON(t)["user"].(map[string]any); user["username"] != "alice" {
			t.Errorf("the token acts for %v, want alice", user)
		}
		if tokens := listTokens(t, env, alice.Bearer()); len(tokens) != 2 || tokens[0]["name"] != "laptop" {
			t.Errorf("alice's tokens = %v, want the one collected and her first", tokens)
		}

		// Once: the code is spent, and no second token is made.
		env.Clock.Advance(5 * time.Second)
		wantDeviceRefusal(t, pollDevice(env, deviceCode), http.StatusBadRequest, "expired_token")
		if tokens := listTokens(t, env, alice.Bearer()); len(tokens) != 2 {
			t.Errorf("a second poll made a token: %v", tokens)
		}
		// Nor can the code be approved again.
		servertest.WantPage(t, browser.Post("/login/device", url.Values{"code": {userCode}}), http.StatusNotFound, "no login waits for this code")
	})
}

// The approval page ticks the scopes the command line asked for (pact
// login --scope) and only those, and says what was asked; a login that
// asked for none ticks none. Approve with no box ticked is refused on the
// page and approves nothing: the login still waits, and the poll says so.
func TestDeviceLoginScopesAskedForAndNoneTicked(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		browser := servertest.NewWebClient(t, env.URL)
		browser.Login(alice)
		ticked := regexp.MustCompile(`name="scope" value="([a-z]+)" checked`)
		tickedOn := func(page servertest.WebResponse) string {
			var out []string
			for _, m := range ticked.FindAllStringSubmatch(page.Body, -1) {
				out = append(out, m[1])
			}
			return strings.Join(out, " ")
		}

		deviceCode, userCode := startDeviceLogin(t, env, map[string]any{"scopes": []string{"yank", "PUBLISH", "yank"}})
		page := browser.Post("/login/device", url.Values{"code": {userCode}})
		servertest.WantPage(t, page, http.StatusOK, "Scopes asked for", "publish, yank", "(tick at least one)")
		if got := tickedOn(page); got != "publish yank" {
			t.Errorf("a login asking for yank and publish: the page ticks %q", got)
		}
		browser.ApproveDevice(userCode, url.Values{"scope": {"publish", "yank"}})
		env.Clock.Advance(5 * time.Second)
		resp := pollDevice(env, deviceCode)
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		if got := resp.JSON(t); fmt.Sprint(got["scopes"]) != "[publish yank]" {
			t.Errorf("the collected token's scopes = %v", got["scopes"])
		}

		for _, body := range []any{nil, map[string]any{"scopes": []string{}}} {
			deviceCode, userCode := startDeviceLogin(t, env, body)
			page := browser.Post("/login/device", url.Values{"code": {userCode}})
			servertest.WantPage(t, page, http.StatusOK, "none: tick what it may do")
			before := len(listTokens(t, env, alice.Bearer()))
			if got := tickedOn(page); got != "" {
				t.Errorf("a login with body %v: the page ticks %q, want none", body, got)
			}
			refused := browser.Post("/login/device/decide", url.Values{"code": {userCode}, "decision": {"approve"}, "name": {"laptop"}})
			servertest.WantPage(t, refused, http.StatusBadRequest,
				"Tick at least one scope: the command line gets only the scopes you tick. Nothing was approved.", `value="laptop"`)
			wantDeviceRefusal(t, pollDevice(env, deviceCode), http.StatusBadRequest, "authorization_pending")
			if tokens := listTokens(t, env, alice.Bearer()); len(tokens) != before {
				t.Errorf("an approval with no scope made a token: %v", tokens)
			}
			browser.ApproveDevice(userCode, url.Values{"scope": {"keys"}})
			env.Clock.Advance(5 * time.Second)
			resp := pollDevice(env, deviceCode)
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			if got := resp.JSON(t); fmt.Sprint(got["scopes"]) != "[keys]" {
				t.Errorf("the collected token's scopes = %v, want [keys]", got["scopes"])
			}
		}
	})
}

// A login denied in the browser is answered access_denied, and makes no
// token.
func TestDeviceLoginDenied(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		deviceCode, userCode := startDeviceLogin(t, env, nil)
		browser := servertest.NewWebClient(t, env.URL)
		browser.Login(alice)
		servertest.WantPage(t, browser.Post("/login/device", url.Values{"code": {userCode}}), http.StatusOK, "Deny")
		servertest.WantRedirect(t, browser.Post("/login/device/decide", url.Values{"code": {userCode}, "decision": {"deny"}}),
			"/login/device?done=denied")
		servertest.WantPage(t, browser.Get("/login/device?done=denied"), http.StatusOK, "Denied")
		for range 2 {
			wantDeviceRefusal(t, pollDevice(env, deviceCode), http.StatusForbidden, "access_denied")
			env.Clock.Advance(5 * time.Second)
		}
		if tokens := listTokens(t, env, alice.Bearer()); len(tokens) != 1 {
			t.Errorf("a denied login made a token: %v", tokens)
		}
	})
}

// The codes last ten minutes: a login not approved by then can be neither
// approved nor collected, one approved but not collected gives nothing,
// and pruning deletes both.
func TestDeviceLoginExpiresAfterTenMinutes(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		waiting, waitingCode := startDeviceLogin(t, env, nil)
		approved, approvedCode := startDeviceLogin(t, env, map[string]any{"name": "approved"})
		browser := servertest.NewWebClient(t, env.URL)
		browser.Login(alice)

		env.Clock.Advance(9*time.Minute + 59*time.Second)
		browser.ApproveDevice(approvedCode, url.Values{"scope": {"publish"}})
		env.Clock.Advance(time.Second)

		servertest.WantPage(t, browser.Post("/login/device", url.Values{"code": {waitingCode}}), http.StatusNotFound, "no login waits for this code")
		wantDeviceRefusal(t, pollDevice(env, waiting), http.StatusBadRequest, "expired_token")
		wantDeviceRefusal(t, pollDevice(env, approved), http.StatusBadRequest, "expired_token")
		if tokens := listTokens(t, env, alice.Bearer()); len(tokens) != 1 {
			t.Errorf("an expired approval made a token: %v", tokens)
		}
		if n, err := env.Service.PruneDeviceLogins(t.Context()); err != nil || n != 2 {
			t.Errorf("PruneDeviceLogins = %d, %v; want the 2 expired logins", n, err)
		}
		wantDeviceRefusal(t, pollDevice(env, approved), http.StatusBadRequest, "expired_token")
	})
}

// What a poll or a login refuses: fields it does not know, a device code
// missing or never given (the two are told apart), and a body of another
// type.
func TestDeviceLoginRefusesMalformedRequests(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		for _, tc := range []struct {
			path   string
			body   any
			status int
			code   string
			says   string
		}{
			{"/api/login/device", map[string]any{"name": "x", "client_id": "pact"}, 400, "", `field "client_id" is not known`},
			{"/api/login/device", map[string]any{"scopes": []string{"publish", "admin"}}, 400, "", `scope "admin" is not known: use publish, yank, keys, tokens, hooks`},
			{"/api/login/device", map[string]any{"scopes": "publish"}, 400, "", "scopes"},
			{"/api/login/device", map[string]any{"name": strings.Repeat("n", 101)}, 400, "", "token name"},
			{"/api/login/device/token", map[string]any{}, 400, "", "device_code is required"},
			{"/api/login/device/token", map[string]any{"device_code": "x", "client_id": "pact"}, 400, "", `field "client_id" is not known`},
			{"/api/login/device/token", map[string]any{"device_code": strings.Repeat("A", 43)}, 400, "expired_token", "start the login again"},
			{"/api/login/device/token", map[string]any{"device_code": "short"}, 400, "expired_token", "start the login again"},
		} {
			resp := env.API.PostJSON(tc.path, tc.body)
			body := resp.JSON(t)
			wantError(t, resp.Status, body, tc.status, tc.says)
			if code, _ := body["code"].(string); code != tc.code {
				t.Errorf("POST %s %v: code %q, want %q", tc.path, tc.body, code, tc.code)
			}
		}
		resp := env.API.Post("/api/login/device", "text/plain", []byte("name=x"))
		wantStatus(t, resp.Status, http.StatusUnsupportedMediaType, resp.Body)
		// No body at all is a login with the default name.
		resp = env.API.Post("/api/login/device", "application/json", nil)
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	})
}

// An address begins a few logins at once, then is told to wait.
func TestDeviceLoginsAreRateLimitedPerAddress(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{Limits: server.Limits{DeviceLogins: server.Limit{Rate: 1.0 / 60, Burst: 2}}})
		for range 2 {
			startDeviceLogin(t, env, nil)
		}
		resp := env.API.Post("/api/login/device", "application/json", nil)
		wantError(t, resp.Status, resp.JSON(t), http.StatusTooManyRequests, "too many requests for new logins from this address")
		if ra := resp.Header.Get("Retry-After"); ra == "" {
			t.Error("429 without Retry-After")
		}
		// Polls are not begun logins: they are not counted.
		wantDeviceRefusal(t, pollDevice(env, strings.Repeat("A", 43)), http.StatusBadRequest, "expired_token")
	})
}
