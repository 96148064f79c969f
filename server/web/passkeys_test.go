package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server/registry"
)

// The passkey paths through the real server on both engines, without a
// browser (browser_passkeys_test.go has the ceremonies themselves).

func eachLocalhostBackend(t *testing.T, fn func(t *testing.T, env *servertest.Env)) {
	servertest.Backends(t, func(t *testing.T, dsn string) {
		fn(t, servertest.Start(t, dsn, servertest.Options{Localhost: true}))
	})
}

func postJSON(c *servertest.WebClient, path, body string) servertest.WebResponse {
	c.T().Helper()
	req, err := http.NewRequest(http.MethodPost, c.URL(path), strings.NewReader(body))
	if err != nil {
		c.T().Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return c.Do(req)
}

// givePasskey stores a passkey row for acct as a registration would, so
// that the second factor may be turned on without an authenticator.
func givePasskey(t *testing.T, env *servertest.Env, acct *registry.Account, name string) *registry.Passkey {
	t.Helper()
	p := &registry.Passkey{AccountID: acct.ID, CredentialID: []byte(name), PublicKey: []byte{1}, Name: name, Record: []byte("{}"), CreatedAt: env.Clock.Now()}
	if err := env.Store.CreatePasskey(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

var recoveryCodePattern = regexp.MustCompile(`<code>([a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4})</code>`)

// turnOnSecondFactor turns on the second factor from the account page and
// answers the recovery codes it shows.
func turnOnSecondFactor(t *testing.T, browser *servertest.WebClient) []string {
	t.Helper()
	r := browser.Post("/dashboard/second-factor", url.Values{"on": {"true"}})
	servertest.WantPage(t, r, http.StatusOK, "now asks for a passkey after the password", "shown this once")
	var codes []string
	for _, m := range recoveryCodePattern.FindAllStringSubmatch(r.Body, -1) {
		codes = append(codes, m[1])
	}
	if len(codes) != registry.RecoveryCodeCount {
		t.Fatalf("%d recovery codes shown, want %d", len(codes), registry.RecoveryCodeCount)
	}
	return codes
}

// The options of a passkey log-in name localhost as the relying party and
// come with a short cookie, which holds the ceremony sealed; an answer that
// is no passkey's is refused, and so is a cookie altered by one character
// (an answer that logs in is not taken twice: TestPasskeyCeremonyFlood).
func TestPasskeyLoginOptionsAndRefusal(t *testing.T) {
	t.Parallel()
	eachLocalhostBackend(t, func(t *testing.T, env *servertest.Env) {
		browser := servertest.NewWebClient(t, env.URL)
		r := postJSON(browser, "/login/passkey/begin", "{}")
		servertest.WantStatus(t, r.Status, http.StatusOK, []byte(r.Body))
		var options struct {
			PublicKey struct {
				Challenge        string `json:"challenge"`
				RPID             string `json:"rpId"`
				UserVerification string `json:"userVerification"`
			} `json:"publicKey"`
		}
		if err := json.Unmarshal([]byte(r.Body), &options); err != nil || options.PublicKey.RPID != "localhost" || len(options.PublicKey.Challenge) < 40 ||
			options.PublicKey.UserVerification != "required" {
			t.Fatalf("options %s (%v)", r.Body, err)
		}
		ck := servertest.SetCookie(r, "pact_webauthn")
		if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.MaxAge != 300 {
			t.Fatalf("ceremony cookie %+v", ck)
		}
		bogus := `{"credential":{"id":"AQID","rawId":"AQID","type":"public-key","response":{"clientDataJSON":"e30","authenticatorData":"AAAA","signature":"AAAA"}}}`
		r = postJSON(browser, "/login/passkey/finish", bogus)
		if r.Status != http.StatusUnauthorized || !strings.Contains(r.Body, `"ok":false`) {
			t.Fatalf("a bogus answer: %d %s", r.Status, r.Body)
		}
		if browser.Cookie("pact_session") != "" {
			t.Fatal("a refused passkey set a session")
		}
		if browser.Cookie("pact_webauthn") != "" {
			t.Fatal("the ceremony cookie outlived its finish")
		}
		altered := []byte(ck.Value)
		altered[len(altered)/2] ^= 1
		browser.AddCookies(&http.Cookie{Name: "pact_webauthn", Value: string(altered)})
		r = postJSON(browser, "/login/passkey/finish", bogus)
		if r.Status != http.StatusUnauthorized || !strings.Contains(r.Body, "expired or was used") {
			t.Fatalf("a finish with an altered ceremony cookie: %d %s", r.Status, r.Body)
		}
	})
}

// With a second factor, the password leads to the second step and no
// session; a recovery code logs in once; wrong codes are counted by the
// log-in throttle; turning the factor off needs the password.
func TestSecondFactorWithRecoveryCodes(t *testing.T) {
	t.Parallel()
	eachLocalhostBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		browser := servertest.NewWebClient(t, env.URL)
		browser.Login(alice)
		r := browser.Post("/dashboard/second-factor", url.Values{"on": {"true"}})
		servertest.WantPage(t, r, http.StatusConflict, "Add a passkey first")
		givePasskey(t, env, alice.Account, "Laptop")
		codes := turnOnSecondFactor(t, browser)

		other := servertest.NewWebClient(t, env.URL)
		r = other.Post("/login", url.Values{"login": {"alice"}, "password": {alice.Password}})
		servertest.WantRedirect(t, r, "/login/second-factor")
		if servertest.SetCookie(r, "pact_session") != nil || servertest.SetCookie(r, "pact_login") == nil {
			t.Fatalf("the password of an account with a second factor set cookies %v", r.Header["Set-Cookie"])
		}
		servertest.WantRedirect(t, other.Get("/dashboard"), "/login")
		servertest.WantPage(t, other.Get("/login/second-factor"), http.StatusOK, "Log in as alice: second step", "Use your passkey")

		// Five wrong codes from one address are the pair's budget.
		for range 5 {
			r = other.Post("/login/second-factor/recovery", url.Values{"code": {"aaaa-bbbb-cccc-dddd"}})
			servertest.WantPage(t, r, http.StatusUnauthorized, "Wrong recovery code")
		}
		r = other.Post("/login/second-factor/recovery", url.Values{"code": {codes[0]}})
		servertest.WantPage(t, r, http.StatusTooManyRequests, "Too many failed log-ins")
		if r.Header.Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
		env.Clock.Advance(16 * time.Minute) // past the window, and past the step's five minutes
		servertest.WantPage(t, other.Get("/login/second-factor"), http.StatusUnauthorized, "log in again")

		third := servertest.NewWebClient(t, env.URL)
		servertest.WantRedirect(t, third.Post("/login", url.Values{"login": {"alice"}, "password": {alice.Password}}), "/login/second-factor")
		servertest.WantRedirect(t, third.Post("/login/second-factor/recovery", url.Values{"code": {strings.ToUpper(codes[0])}}), "/dashboard")
		servertest.WantPage(t, third.Get("/dashboard"), http.StatusOK, "Logged in as")

		fourth := servertest.NewWebClient(t, env.URL)
		servertest.WantRedirect(t, fourth.Post("/login", url.Values{"login": {"alice"}, "password": {alice.Password}}), "/login/second-factor")
		servertest.WantPage(t, fourth.Post("/login/second-factor/recovery", url.Values{"code": {codes[0]}}), http.StatusUnauthorized, "Wrong recovery code")
		servertest.WantPage(t, third.Get("/dashboard/account"), http.StatusOK, "9 unused recovery codes left")

		// Off needs the password.
		servertest.WantPage(t, third.Post("/dashboard/second-factor", url.Values{"on": {"false"}, "password": {"wrong"}}), http.StatusUnauthorized, "password is wrong")
		servertest.WantRedirect(t, third.Post("/dashboard/second-factor", url.Values{"on": {"false"}, "password": {alice.Password}}), "/dashboard/account?done=second-factor-off#second-factor")
		fifth := servertest.NewWebClient(t, env.URL)
		fifth.Login(alice)
		if n, _ := env.Service.RecoveryCodesLeft(context.Background(), alice.Account.ID); n != 0 {
			t.Errorf("%d recovery codes left after turning the second factor off", n)
		}
	})
}

// Removing the last passkey of an account with a second factor needs the
// password and turns the factor off; another passkey goes without it.
func TestRemovingTheLastPasskeyNeedsThePassword(t *testing.T) {
	t.Parallel()
	eachLocalhostBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		browser := servertest.NewWebClient(t, env.URL)
		browser.Login(alice)
		laptop, phone := givePasskey(t, env, alice.Account, "Laptop"), givePasskey(t, env, alice.Account, "Phone")
		turnOnSecondFactor(t, browser)
		path := func(p *registry.Passkey) string {
			return "/dashboard/passkeys/" + strconv.FormatInt(p.ID, 10) + "/delete"
		}
		r := browser.Post(path(laptop), nil)
		servertest.WantPage(t, r, http.StatusOK, "Remove the passkey “Laptop”?")
		if strings.Contains(r.Body, `name="password"`) {
			t.Error("removing one of two passkeys asks the password")
		}
		servertest.WantRedirect(t, browser.Post(path(laptop), url.Values{"confirm": {"yes"}}), "/dashboard/account?done=passkey-removed#passkeys")
		servertest.WantPage(t, browser.Post(path(phone), nil), http.StatusOK, "your last passkey", `name="password"`)
		servertest.WantPage(t, browser.Post(path(phone), url.Values{"confirm": {"yes"}, "password": {"wrong"}}), http.StatusUnauthorized, "password is wrong")
		servertest.WantPage(t, browser.Post(path(phone), url.Values{"confirm": {"yes"}}), http.StatusUnauthorized, "password is wrong")
		servertest.WantRedirect(t, browser.Post(path(phone), url.Values{"confirm": {"yes"}, "password": {alice.Password}}), "/dashboard/account?done=passkey-removed#passkeys")
		acct, err := env.Service.AccountByUsername(context.Background(), "alice")
		if err != nil || acct.RequireSecondFactor {
			t.Fatalf("after removing the last passkey alice = %+v, %v; want the second factor off", acct, err)
		}
		browser.Login(alice) // the password alone again
	})
}

// An organisation that requires a second factor refuses its management in
// the dashboard to a member without one, page and forms; its API tokens
// are not affected.
func TestOrganisationRequiresASecondFactor(t *testing.T) {
	t.Parallel()
	eachLocalhostBackend(t, func(t *testing.T, env *servertest.Env) {
		ctx := context.Background()
		alice, bob := env.CreateUser(t, "alice"), env.CreateUser(t, "bob")
		env.CreateUser(t, "carol")
		if _, err := env.Service.CreateOrg(ctx, alice.Account, nil, "acme", ""); err != nil {
			t.Fatal(err)
		}
		if _, err := env.Service.SetMember(ctx, alice.Account, nil, "acme", "bob", registry.RoleOwner); err != nil {
			t.Fatal(err)
		}
		aliceWeb := servertest.NewWebClient(t, env.URL)
		aliceWeb.Login(alice)
		r := aliceWeb.Post("/dashboard/orgs/acme/second-factor", url.Values{"on": {"true"}})
		servertest.WantPage(t, r, http.StatusConflict, "turn your own second factor on first")
		givePasskey(t, env, alice.Account, "Laptop")
		turnOnSecondFactor(t, aliceWeb)
		servertest.WantRedirect(t, aliceWeb.Post("/dashboard/orgs/acme/second-factor", url.Values{"on": {"true"}}), "/dashboard/orgs?done=org-second-factor-on#org-acme")

		bobWeb := servertest.NewWebClient(t, env.URL)
		bobWeb.Login(bob)
		r = bobWeb.Get("/dashboard/orgs")
		servertest.WantPage(t, r, http.StatusOK, "requires a second factor of the members who manage it in the dashboard")
		if strings.Contains(r.Body, `action="/dashboard/orgs/acme/members"`) {
			t.Error("bob, without a second factor, is offered acme's member form")
		}
		r = bobWeb.Post("/dashboard/orgs/acme/members", url.Values{"username": {"carol"}, "role": {"maintainer"}})
		servertest.WantPage(t, r, http.StatusForbidden, "requires a second factor")
		servertest.WantPage(t, bobWeb.Post("/dashboard/orgs/acme/second-factor", url.Values{"on": {"false"}}), http.StatusForbidden, "requires a second factor")
		// The API is not the dashboard: bob's token still manages acme.
		res := env.API.PutJSON("/api/orgs/acme/members/carol", map[string]string{"role": "maintainer"}, bob.Bearer())
		if res.Status != http.StatusOK {
			t.Errorf("bob's token adding a member: %d %s", res.Status, res.Body)
		}
		// Alice, with her second factor, manages it in the dashboard.
		servertest.WantRedirect(t, aliceWeb.Post("/dashboard/orgs/acme/members/carol/remove", nil), "/dashboard/orgs?done=member-removed#org-acme")
	})
}
