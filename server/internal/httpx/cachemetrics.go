package httpx

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/pact-registry/pact/server/registry"
)

// cacheCollector reports in-memory caches' reads and size, read from each
// cache when /metrics is asked for: counting costs a request nothing more
// than the cache's own bookkeeping.
type cacheCollector struct {
	names  []string
	stats  []func() registry.CacheStats
	hits   *prometheus.Desc
	misses *prometheus.Desc
	bytes  *prometheus.Desc
	limit  *prometheus.Desc
}

func newCacheCollector() *cacheCollector {
	label := []string{"cache"}
	return &cacheCollector{
		hits:   prometheus.NewDesc("pact_cache_hits_total", "Reads answered from an in-memory cache.", label, nil),
		misses: prometheus.NewDesc("pact_cache_misses_total", "Reads an in-memory cache could not answer.", label, nil),
		bytes:  prometheus.NewDesc("pact_cache_bytes", "Bytes an in-memory cache holds, as it counts them.", label, nil),
		limit:  prometheus.NewDesc("pact_cache_max_bytes", "Bytes an in-memory cache may hold.", label, nil),
	}
}

func (c *cacheCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.hits
	ch <- c.misses
	ch <- c.bytes
	ch <- c.limit
}

func (c *cacheCollector) Collect(ch chan<- prometheus.Metric) {
	for i, name := range c.names {
		s := c.stats[i]()
		ch <- prometheus.MustNewConstMetric(c.hits, prometheus.CounterValue, float64(s.Hits), name)
		ch <- prometheus.MustNewConstMetric(c.misses, prometheus.CounterValue, float64(s.Misses), name)
		ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.GaugeValue, float64(s.Bytes), name)
		ch <- prometheus.MustNewConstMetric(c.limit, prometheus.GaugeValue, float64(s.MaxBytes), name)
	}
}

// AddCache reports a cache under the label cache=name. Call it before the
// server answers.
func (m *Metrics) AddCache(name string, stats func() registry.CacheStats) {
	m.caches.names = append(m.caches.names, name)
	m.caches.stats = append(m.caches.stats, stats)
}
