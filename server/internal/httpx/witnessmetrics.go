package httpx

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pact-registry/pact/server/registry"
)

// witnessCollector reports the transparency log's witnesses (docs/operations.md,
// Metrics), read from the registry when /metrics is asked for: the state the
// pushing replica stored, so every replica reports the same, and the
// pushes this replica made.
type witnessCollector struct {
	report    func(context.Context) (*registry.WitnessReport, error)
	up        *prometheus.Desc
	since     *prometheus.Desc
	cosigned  *prometheus.Desc
	pushes    *prometheus.Desc
	size      *prometheus.Desc
	witnessed *prometheus.Desc
	quorumAt  *prometheus.Desc
}

// witnessReportTimeout bounds the reads of one scrape.
const witnessReportTimeout = 2 * time.Second

func newWitnessCollector(report func(context.Context) (*registry.WitnessReport, error)) *witnessCollector {
	w := []string{"witness"}
	return &witnessCollector{
		report:    report,
		up:        prometheus.NewDesc("pact_log_witness_up", "1 while a witness of the log's policy answers with cosignatures, 0 while it fails.", w, nil),
		since:     prometheus.NewDesc("pact_log_witness_failing_since_seconds", "When a witness started failing (Unix time), 0 while it answers.", w, nil),
		cosigned:  prometheus.NewDesc("pact_log_witness_cosigned_size", "The size of the latest checkpoint a witness is known to have cosigned.", w, nil),
		pushes:    prometheus.NewDesc("pact_log_witness_pushes_total", "Checkpoints this replica sent a witness, by result: cosigned, conflict (409), refused (another answer), failed (no answer, or not a cosignature).", []string{"witness", "result"}, nil),
		size:      prometheus.NewDesc("pact_log_checkpoint_size", "The size of the log's latest signed checkpoint.", nil, nil),
		witnessed: prometheus.NewDesc("pact_log_witnessed_size", "The size of the checkpoint served, cosigned by a quorum of witnesses (-1 when none is).", nil, nil),
		quorumAt:  prometheus.NewDesc("pact_log_witnessed_timestamp_seconds", "The newest time a quorum of witnesses cosigned the checkpoint served (Unix time).", nil, nil),
	}
}

func (c *witnessCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.up, c.since, c.cosigned, c.pushes, c.size, c.witnessed, c.quorumAt} {
		ch <- d
	}
}

func (c *witnessCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), witnessReportTimeout)
	defer cancel()
	r, err := c.report(ctx)
	if err != nil || r == nil {
		return // no policy, or the database does not answer: /readyz says so
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(c.size, float64(r.CheckpointSize))
	gauge(c.witnessed, float64(r.WitnessedSize))
	if !r.QuorumTime.IsZero() {
		gauge(c.quorumAt, float64(r.QuorumTime.Unix()))
	}
	for _, w := range r.Witnesses {
		up, since := 1.0, 0.0
		if !w.OK {
			up = 0
			if w.FailingSince != nil {
				since = float64(w.FailingSince.Unix())
			}
		}
		gauge(c.up, up, w.Name)
		gauge(c.since, since, w.Name)
		gauge(c.cosigned, float64(w.CosignedSize), w.Name)
		for result, n := range w.Pushes {
			ch <- prometheus.MustNewConstMetric(c.pushes, prometheus.CounterValue, float64(n), w.Name, result)
		}
	}
}

// AddWitnesses reports the log's witnesses from report (nil without a
// policy). Call it before the server answers.
func (m *Metrics) AddWitnesses(report func(context.Context) (*registry.WitnessReport, error)) {
	m.registry.MustRegister(newWitnessCollector(report))
}
