package routes_test

import (
	"testing"

	"github.com/pact-registry/pact/pkg/routes"
)

func TestFill(t *testing.T) {
	cases := []struct {
		pattern string
		values  []string
		want    string
	}{
		{routes.Me, nil, "/api/me"},
		{routes.Yank, []string{"alice", "widget", "1.0.0"}, "/api/packages/alice/widget/versions/1.0.0/yank"},
		{routes.Package, []string{"a b", "x/y"}, "/api/packages/a%20b/x%2Fy"},
		{routes.Raw, []string{"alice", "widget@1.0.0.pact.md"}, "/raw/alice/widget@1.0.0.pact.md"},
		{routes.LogTile, []string{"0/x001/067.p/3"}, "/log/tile/0/x001/067.p/3"},
		{routes.HookRedeliver, []string{"7", "12"}, "/api/hooks/7/deliveries/12/redeliver"},
	}
	for _, c := range cases {
		if got := routes.Fill(c.pattern, c.values...); got != c.want {
			t.Errorf("Fill(%q, %q) = %q, want %q", c.pattern, c.values, got, c.want)
		}
	}
	for _, bad := range [][]string{{}, {"alice", "widget", "1.0.0", "extra"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Fill(Yank, %q) did not panic", bad)
				}
			}()
			routes.Fill(routes.Yank, bad...)
		}()
	}
}
