package registry_test

import (
	"context"
	"regexp"
	"testing"

	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// A user code is typed by people: case, spaces and the dash do not
// matter, anything else makes it no code at all.
func TestNormalizeUserCode(t *testing.T) {
	tests := []struct {
		name, typed, want string
	}{
		{"as shown", "WDJB-MJHT", "WDJBMJHT"},
		{"lower case", "wdjb-mjht", "WDJBMJHT"},
		{"spaces for the dash", " wdjb mjht ", "WDJBMJHT"},
		{"no dash", "WDJBMJHT", "WDJBMJHT"},
		{"a vowel", "WDJA-MJHT", ""},
		{"a digit", "WDJB-MJH7", ""},
		{"zero for O", "WDJB-MJH0", ""},
		{"too short", "WDJB-MJH", ""},
		{"too long", "WDJB-MJHTB", ""},
		{"empty", "", ""},
		{"another alphabet", "ЖDJB-MJHT", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := registry.NormalizeUserCode(tc.typed); got != tc.want {
				t.Errorf("NormalizeUserCode(%q) = %q, want %q", tc.typed, got, tc.want)
			}
		})
	}
}

// The codes a login gets: a long device code, a user code of eight
// letters of the alphabet, shown with a dash, and neither stored.
func TestStartDeviceLoginCodes(t *testing.T) {
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, storetest.SQLiteDSN(t), sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc := registry.NewService(store, registry.Options{})
	seen := map[string]bool{}
	for range 50 {
		start, err := svc.StartDeviceLogin(ctx, "", nil, registry.SessionClient{UserAgent: "pact/1.0\x1b[31m", IP: "::ffff:192.0.2.1"})
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^[0-9A-Za-z]{43}$`).MatchString(start.DeviceCode) ||
			!regexp.MustCompile(`^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$`).MatchString(start.UserCode) {
			t.Fatalf("codes %q, %q", start.DeviceCode, start.UserCode)
		}
		if seen[start.UserCode] {
			t.Fatalf("user code %s given twice", start.UserCode)
		}
		seen[start.UserCode] = true
		d := start.Login
		if d.Name != registry.DeviceLoginName || d.UserAgent != "pact/1.0 [31m" || d.IP != "192.0.2.1" ||
			string(d.DeviceHash) == start.DeviceCode || string(d.UserHash) == start.UserCode {
			t.Fatalf("login = %+v", d)
		}
		if got, err := svc.PendingDeviceLogin(ctx, start.UserCode); err != nil || got.ID != d.ID {
			t.Fatalf("PendingDeviceLogin(%s) = %v, %v", start.UserCode, got, err)
		}
	}
}
