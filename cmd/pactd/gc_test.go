package main_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/pact-registry/pact/internal/pactdtest"
)

var (
	gogcMetric       = regexp.MustCompile(`(?m)^go_gc_gogc_percent (\S+)$`)
	gomemlimitMetric = regexp.MustCompile(`(?m)^go_gc_gomemlimit_bytes (\S+)$`)
)

// pactd collects garbage at GOGC=200 with a soft memory limit of its read
// cache plus 64 MiB, unless the operator set GOGC or GOMEMLIMIT, which then
// win (docs/operations.md, "Memory"); /metrics shows both.
func TestServeSetsTheCollectorTargetsUnlessTheEnvironmentDoes(t *testing.T) {
	for _, c := range []struct {
		env, limitEnv string // "" leaves GOGC, GOMEMLIMIT unset
		want, limit   string
	}{{"", "", "200", "8.388608e+07"}, {"50", "200MiB", "50", "2.097152e+08"}} {
		for name, value := range map[string]string{"GOGC": c.env, "GOMEMLIMIT": c.limitEnv} {
			if value != "" {
				t.Setenv(name, value)
			} else if v, ok := os.LookupEnv(name); ok {
				t.Setenv(name, v) // restored after the test
				os.Unsetenv(name)
			}
		}
		// A 16 MiB read cache: a default limit of 16 + 64 MiB.
		srv, err := pactdtest.Start(pactdBin, t.TempDir(), "--db-read-cache-bytes", "16777216")
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
		if m := gomemlimitMetric.FindStringSubmatch(body); m == nil || m[1] != c.limit {
			t.Errorf("GOMEMLIMIT=%q: go_gc_gomemlimit_bytes %v, want %s", c.limitEnv, m, c.limit)
		}
	}
}
