package main_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/pact-registry/pact/internal/pactdtest"
)

var gogcMetric = regexp.MustCompile(`(?m)^go_gc_gogc_percent (\S+)$`)

// pactd collects garbage at GOGC=200 unless the operator set GOGC, which
// then wins (docs/operations.md, "Memory"); /metrics shows the setting.
func TestServeSetsTheCollectorTargetUnlessGOGCIsSet(t *testing.T) {
	for _, c := range []struct {
		env  string // "" leaves GOGC unset
		want string
	}{{"", "200"}, {"50", "50"}} {
		if c.env == "" {
			if v, ok := os.LookupEnv("GOGC"); ok {
				t.Setenv("GOGC", v) // restored after the test
				os.Unsetenv("GOGC")
			}
		} else {
			t.Setenv("GOGC", c.env)
		}
		srv, err := pactdtest.Start(pactdBin, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		status, body := getText(t, srv.URL+"/metrics")
		srv.Stop()
		m := gogcMetric.FindStringSubmatch(body)
		if status != 200 || m == nil {
			t.Fatalf("GOGC=%q: /metrics answered %d without go_gc_gogc_percent", c.env, status)
		}
		if m[1] != c.want {
			t.Errorf("GOGC=%q: go_gc_gogc_percent %s, want %s", c.env, m[1], c.want)
		}
	}
}
