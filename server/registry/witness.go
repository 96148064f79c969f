package registry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/pact-registry/pact/pkg/clip"
	"github.com/pact-registry/pact/pkg/translog"
)

// Witnesses (docs/protocol.md, Witnesses; docs/design.md, The
// transparency log). With a witness policy, pactd pushes every new
// checkpoint to the policy's witnesses over C2SP tlog-witness, keeps their
// cosignatures, and serves the newest checkpoint whose cosignatures meet
// the policy's quorum: a client that checks the quorum is shown the
// history the witnesses saw, or nothing. The push runs beside the
// sequencer and never holds up a publish; when the quorum cannot be
// reached the last witnessed checkpoint stays served.

// WitnessStore keeps what the witnesses answered.
type WitnessStore interface {
	// WitnessTurn runs push unless a push to the witnesses of this log is
	// under way, here or in another process (PostgreSQL replicas take
	// turns), in which case it answers false without running it.
	WitnessTurn(ctx context.Context, push func(ctx context.Context) error) (ran bool, err error)
	// WitnessState answers every witness's row, the cosignatures stored for
	// the checkpoint of size, and the witnessed checkpoint.
	WitnessState(ctx context.Context, size int64) (WitnessState, error)
	// SaveWitnessRound stores a round in one transaction: the witnesses'
	// rows, the new cosignatures (each replacing the witness's stored one
	// for the size), and, when Witnessed is set, the witnessed checkpoint,
	// unless one of a larger size is stored; cosignatures of sizes below
	// the witnessed one are deleted.
	SaveWitnessRound(ctx context.Context, r WitnessRound) error
	// WitnessedCheckpoint answers the witnessed checkpoint; ok is false
	// when there is none.
	WitnessedCheckpoint(ctx context.Context) (size int64, signed []byte, ok bool, err error)
}

// WitnessStatus is what is known of one witness.
type WitnessStatus struct {
	Key string // its verifier key
	// Size is that of the latest checkpoint it is known to have cosigned:
	// the old size of the next push.
	Size int64
	// FailingSince is when it stopped answering with a cosignature, nil
	// while it answers; Error says why.
	FailingSince *time.Time
	Error        string
	CheckedAt    time.Time
}

// Cosignature is a witness's cosignature line of a checkpoint and the time
// it carries.
type Cosignature struct {
	Key      string
	Line     []byte
	SignedAt time.Time
}

// WitnessState is what the store holds for a round.
type WitnessState struct {
	Witnesses    []WitnessStatus
	Cosignatures []Cosignature // of the size asked for
	// WitnessedSize and Witnessed are the witnessed checkpoint, -1 and nil
	// when there is none.
	WitnessedSize int64
	Witnessed     []byte
}

// WitnessRound is what one round of pushes stores.
type WitnessRound struct {
	Size         int64 // of the checkpoint pushed
	Cosignatures []Cosignature
	Witnesses    []WitnessStatus
	// Witnessed, when not nil, is the checkpoint of Size with cosignatures
	// that meet the quorum appended.
	Witnessed []byte
}

// WitnessClient talks C2SP tlog-witness to a witness.
type WitnessClient interface {
	// AddCheckpoint posts the signed checkpoint with the consistency proof
	// from oldSize to URL/add-checkpoint and answers the body of a 200
	// (signature lines), a *WitnessConflict for a 409, a *WitnessRefusal
	// for another answer, or the error of reaching it.
	AddCheckpoint(ctx context.Context, url string, oldSize int64, proof tlog.TreeProof, signed []byte) ([]byte, error)
}

// WitnessConflict is a witness's 409: it last cosigned a tree of Size.
type WitnessConflict struct{ Size int64 }

func (e *WitnessConflict) Error() string {
	return fmt.Sprintf("it answered 409 Conflict: it last cosigned a tree of %d entries", e.Size)
}

// WitnessRefusal is any other answer than 200 or 409.
type WitnessRefusal struct {
	Status  int
	Message string // the start of its body
}

func (e *WitnessRefusal) Error() string {
	msg := fmt.Sprintf("it answered %d %s", e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// Witness push results, for metrics: a cosignature, a 409, another
// answer, no answer (or one that is not a cosignature).
const (
	PushCosigned = "cosigned"
	PushConflict = "conflict"
	PushRefused  = "refused"
	PushFailed   = "failed"
)

// DefaultWitnessRefresh is how old the cosignatures of an unchanged
// checkpoint may grow before it is pushed again.
const DefaultWitnessRefresh = time.Hour

// Bounds of the pusher: a witness that fails is asked again after
// witnessRetryMin, doubling to witnessRetryMax, so a witness back up is
// used again within seconds without being hammered while it is down.
const (
	witnessRetryMin = 500 * time.Millisecond
	witnessRetryMax = 5 * time.Second
	// maxWitnessConflicts bounds the 409s one push follows.
	maxWitnessConflicts = 3
	// maxWitnessError bounds an error kept and shown for a witness.
	maxWitnessError = 300
)

// WitnessOptions configure the witnesses.
type WitnessOptions struct {
	Policy *translog.Policy
	Client WitnessClient
	// Refresh is DefaultWitnessRefresh when 0.
	Refresh time.Duration
	// Log receives a line when a witness starts or stops failing and when
	// the quorum is lost or met again; nil: none.
	Log *slog.Logger
}

// witnessing is the service's state of its witnesses.
type witnessing struct {
	policy  *translog.Policy
	client  WitnessClient
	refresh time.Duration
	log     *slog.Logger
	wake    chan struct{}

	mu      sync.Mutex
	retry   map[string]witnessRetry // by key: this process's back-off
	pushes  map[[2]string]uint64    // by witness name and result
	lastMet *bool                   // the quorum after the last round
	// cosigned is, by key, the size this process last had cosigned and
	// when: a witness whose clock lags is not asked again every round.
	cosigned map[string]witnessCosigned
}

type witnessCosigned struct {
	size int64
	at   time.Time
}

type witnessRetry struct {
	failures int
	next     time.Time
}

// InitWitnesses gives the service its witness policy, after InitLog. The
// policy must name the log's key in a log line: clients check the log's
// signature under it.
func (s *Service) InitWitnesses(opts WitnessOptions) error {
	if s.log == nil {
		return errors.New("the log has no key: InitLog first")
	}
	if !opts.Policy.NamesLog(s.log.verifierKey) {
		return fmt.Errorf("the witness policy has no line \"log %s\" naming this log's key: add it, so that clients check the log's signature under the policy", s.log.verifierKey)
	}
	refresh := opts.Refresh
	if refresh <= 0 {
		refresh = DefaultWitnessRefresh
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s.witness = &witnessing{policy: opts.Policy, client: opts.Client, refresh: refresh, log: log,
		wake: make(chan struct{}, 1), retry: map[string]witnessRetry{}, pushes: map[[2]string]uint64{},
		cosigned: map[string]witnessCosigned{}}
	return nil
}

// WitnessPolicy answers the witness policy as given, nil without one.
func (s *Service) WitnessPolicy() []byte {
	if s.witness == nil {
		return nil
	}
	return s.witness.policy.Text()
}

// wakeWitnesses tells the pusher a checkpoint was signed.
func (s *Service) wakeWitnesses() {
	if s.witness == nil {
		return
	}
	select {
	case s.witness.wake <- struct{}{}:
	default:
	}
}

// RunWitnessPusher pushes checkpoints to the witnesses as soon as this
// process's sequencer signs one, and every poll for other replicas'
// checkpoints, refreshes and retries, until ctx ends. onError receives
// the rounds that failed.
func (s *Service) RunWitnessPusher(ctx context.Context, poll time.Duration, onError func(error)) {
	if s.witness == nil {
		return
	}
	ticker := time.NewTicker(poll)
	defer ticker.Stop()
	for {
		if _, err := s.PushToWitnesses(ctx); err != nil && ctx.Err() == nil && onError != nil {
			onError(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-s.witness.wake:
		case <-ticker.C:
		}
	}
}

// PushToWitnesses runs one round of pushes, unless another replica is
// running one; it answers whether it ran.
func (s *Service) PushToWitnesses(ctx context.Context) (bool, error) {
	if s.witness == nil {
		return false, nil
	}
	return s.store.WitnessTurn(ctx, s.witnessRound)
}

// witnessRound pushes the latest checkpoint to every witness that has not
// cosigned it lately (and is not waiting out a failure), stores what they
// answered and, when the cosignatures meet the quorum, the witnessed
// checkpoint.
func (s *Service) witnessRound(ctx context.Context) error {
	w := s.witness
	size, signed, err := s.store.LatestCheckpoint(ctx)
	if err != nil {
		return err
	}
	st, err := s.store.WitnessState(ctx, size)
	if err != nil {
		return err
	}
	now := s.now()
	known := map[string]WitnessStatus{}
	for _, r := range st.Witnesses {
		known[r.Key] = r
	}
	cosigs := map[string]Cosignature{}
	for _, c := range st.Cosignatures {
		cosigs[c.Key] = c
	}

	type outcome struct {
		pushed bool
		cosig  Cosignature
		size   int64
		err    error
	}
	outcomes := make([]outcome, len(w.policy.Witnesses))
	var wg sync.WaitGroup
	for i := range w.policy.Witnesses {
		pw := &w.policy.Witnesses[i]
		if pw.URL == "" {
			continue
		}
		if c, ok := cosigs[pw.Key]; ok && now.Sub(c.SignedAt) < w.refresh {
			continue
		}
		if !w.due(pw.Key, size, now) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, cosigned, err := s.pushTo(ctx, pw, size, signed, known[pw.Key].Size)
			outcomes[i] = outcome{pushed: true, cosig: c, size: cosigned, err: err}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}

	round := WitnessRound{Size: size}
	for i, o := range outcomes {
		if !o.pushed {
			continue
		}
		pw := &w.policy.Witnesses[i]
		prev, seen := known[pw.Key]
		status := WitnessStatus{Key: pw.Key, Size: o.size, CheckedAt: now}
		if o.err == nil {
			cosigs[pw.Key] = o.cosig
			round.Cosignatures = append(round.Cosignatures, o.cosig)
			w.succeeded(pw.Key, size, now)
			if prev.FailingSince != nil {
				w.log.Info("witness "+pw.Name+" cosigns again", "witness", pw.Name, "url", pw.URL,
					"down_for", now.Sub(*prev.FailingSince).Round(time.Second).String())
			}
		} else {
			since := now
			if prev.FailingSince != nil {
				since = *prev.FailingSince
			}
			status.FailingSince = &since
			status.Error = clip.Text(o.err.Error(), maxWitnessError)
			w.failed(pw.Key, now)
			if prev.FailingSince == nil {
				w.log.Warn("witness "+pw.Name+" fails: "+status.Error, "witness", pw.Name, "url", pw.URL,
					"since", since.Format(time.RFC3339))
			}
		}
		if o.size == 0 && seen {
			status.Size = prev.Size // nothing learnt of its size
		}
		round.Witnesses = append(round.Witnesses, status)
	}

	// The checkpoint with every cosignature stored for it, in the policy's
	// order; served once they meet the quorum.
	combined := bytes.Clone(signed)
	for _, pw := range w.policy.Witnesses {
		if c, ok := cosigs[pw.Key]; ok {
			combined = append(combined, c.Line...)
		}
	}
	_, verr := w.policy.Verify(combined)
	if verr == nil && size >= st.WitnessedSize && !bytes.Equal(combined, st.Witnessed) {
		round.Witnessed = combined
	}
	if len(round.Witnesses) > 0 || round.Witnessed != nil {
		if err := s.store.SaveWitnessRound(ctx, round); err != nil {
			return err
		}
		if round.Witnessed != nil {
			s.witnessed.drop() // serve the new one at once
			s.nudgeCheckpointWatch()
		}
	}
	w.noteQuorum(verr == nil, size, st.WitnessedSize, verr)
	return nil
}

// pushTo asks one witness to cosign the checkpoint of size, sending the
// consistency proof from the size it last cosigned (known; 0 when none),
// and follows its 409s: a witness that has cosigned another size says
// which, and the push is made again from there. It answers the
// cosignature and the size the witness is now known to have cosigned (0
// when nothing was learnt).
func (s *Service) pushTo(ctx context.Context, pw *translog.PolicyWitness, size int64, signed []byte, known int64) (Cosignature, int64, error) {
	w := s.witness
	old := known
	if old > size {
		old = 0 // this database is behind what it witnessed: its 409 says where it stands
	}
	learnt := int64(0)
	for range maxWitnessConflicts {
		var proof tlog.TreeProof
		if old > 0 && old < size {
			var err error
			proof, err = tlog.ProveTree(size, old, tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
				return s.store.LogHashes(ctx, indexes)
			}))
			if err != nil {
				return Cosignature{}, learnt, fmt.Errorf("proving that the log of %d entries extends the %d it cosigned: %w", size, old, err)
			}
		}
		answer, err := w.client.AddCheckpoint(ctx, pw.URL, old, proof, signed)
		var conflict *WitnessConflict
		var refusal *WitnessRefusal
		switch {
		case errors.As(err, &conflict):
			w.count(pw.Name, PushConflict)
			learnt = conflict.Size
			if conflict.Size > size {
				return Cosignature{}, learnt, fmt.Errorf("it has cosigned a tree of %d entries, larger than this log's %d: it was shown another history of this log, or this database is older than the log it witnessed", conflict.Size, size)
			}
			if conflict.Size == old {
				return Cosignature{}, learnt, fmt.Errorf("it answers 409 Conflict with the size it was sent (%d)", old)
			}
			old = conflict.Size
			continue
		case errors.As(err, &refusal):
			w.count(pw.Name, PushRefused)
			return Cosignature{}, learnt, err
		case err != nil:
			w.count(pw.Name, PushFailed)
			return Cosignature{}, learnt, err
		}
		line, at, err := pw.Cosignature(signed, answer)
		if err != nil {
			w.count(pw.Name, PushFailed)
			return Cosignature{}, learnt, fmt.Errorf("its answer: %w", err)
		}
		w.count(pw.Name, PushCosigned)
		return Cosignature{Key: pw.Key, Line: line, SignedAt: at}, size, nil
	}
	return Cosignature{}, learnt, fmt.Errorf("it answered 409 Conflict %d times", maxWitnessConflicts)
}

// due says whether a witness may be asked to cosign the checkpoint of size
// now: it is not waiting out a failure, and it did not cosign that size for
// this process less than refresh ago (whatever its clock says).
func (w *witnessing) due(key string, size int64, now time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if c, ok := w.cosigned[key]; ok && c.size == size && now.Sub(c.at) < w.refresh {
		return false
	}
	return !now.Before(w.retry[key].next)
}

func (w *witnessing) succeeded(key string, size int64, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.retry, key)
	w.cosigned[key] = witnessCosigned{size: size, at: now}
}

func (w *witnessing) failed(key string, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.retry[key]
	wait := witnessRetryMin << min(r.failures, 8)
	r.failures++
	r.next = now.Add(min(wait, witnessRetryMax))
	w.retry[key] = r
}

func (w *witnessing) count(name, result string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pushes[[2]string{name, result}]++
}

// noteQuorum logs when the latest checkpoint stops or starts meeting the
// quorum.
func (w *witnessing) noteQuorum(met bool, size, witnessedSize int64, why error) {
	w.mu.Lock()
	last := w.lastMet
	w.lastMet = &met
	w.mu.Unlock()
	switch {
	case !met && (last == nil || *last):
		served := "none is served yet"
		if witnessedSize >= 0 {
			served = fmt.Sprintf("the checkpoint of %d entries stays served", witnessedSize)
		}
		w.log.Warn(fmt.Sprintf("the log's checkpoint of %d entries lacks the cosignatures its witness policy requires: %s; publishing goes on", size, served),
			"checkpoint_size", size, "witnessed_size", witnessedSize, "why", why.Error())
	case met && last != nil && !*last:
		w.log.Info(fmt.Sprintf("the log's checkpoints meet the witness policy again (%d entries)", size), "checkpoint_size", size)
	}
}

// servedCheckpoint is the checkpoint /log/checkpoint answers: with a
// witness policy the witnessed one, else the latest signed.
func (s *Service) servedCheckpoint(ctx context.Context) (int64, []byte, error) {
	if s.witness == nil {
		return s.latestCheckpoint(ctx)
	}
	size, signed, gen := s.witnessed.get()
	if signed != nil {
		return size, signed, nil
	}
	read := time.Now()
	size, signed, ok, err := s.store.WitnessedCheckpoint(ctx)
	if err != nil {
		return 0, nil, err
	}
	if ok {
		// Witnessed under another policy (pactd started with a new one):
		// not served until the witnesses of this one cosign.
		if _, err := s.witness.policy.Verify(signed); err != nil {
			ok = false
		}
	}
	if !ok {
		return 0, nil, Errorf(Unavailable, "the log has no checkpoint cosigned by the witnesses of its policy yet: /readyz says what they answer")
	}
	s.witnessed.set(gen, size, signed, read)
	return size, signed, nil
}

// WitnessReport is what /readyz and /metrics say of the witnesses.
type WitnessReport struct {
	CheckpointSize int64 // of the latest signed checkpoint
	WitnessedSize  int64 // of the one served, -1 when none is
	// QuorumTime is the newest time a quorum cosigned the served one;
	// zero when none is served or the quorum needs none.
	QuorumTime time.Time
	Witnesses  []WitnessReportEntry
}

// WitnessReportEntry is one witness of the policy.
type WitnessReportEntry struct {
	Name, URL, Key string
	// OK is false while it fails; FailingSince and Error say since when
	// and why. A witness not asked yet is OK.
	OK           bool
	FailingSince *time.Time
	Error        string
	// CosignedSize is the latest size it is known to have cosigned (0
	// before it cosigned one).
	CosignedSize int64
	// Pushes counts this process's requests to it by result (PushCosigned,
	// PushConflict, PushRefused, PushFailed).
	Pushes map[string]uint64
}

// WitnessReport answers the state of the witnesses, as the pushing
// replica stored it; nil without a policy.
func (s *Service) WitnessReport(ctx context.Context) (*WitnessReport, error) {
	w := s.witness
	if w == nil {
		return nil, nil
	}
	size, _, err := s.store.LatestCheckpoint(ctx)
	if err != nil && !IsCode(err, Unavailable) {
		return nil, err
	}
	st, err := s.store.WitnessState(ctx, -1)
	if err != nil {
		return nil, err
	}
	r := &WitnessReport{CheckpointSize: size, WitnessedSize: -1}
	if st.Witnessed != nil {
		if wd, err := w.policy.Verify(st.Witnessed); err == nil {
			r.WitnessedSize, r.QuorumTime = st.WitnessedSize, wd.QuorumTime
		}
	}
	rows := map[string]WitnessStatus{}
	for _, row := range st.Witnesses {
		rows[row.Key] = row
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, pw := range w.policy.Witnesses {
		e := WitnessReportEntry{Name: pw.Name, URL: pw.URL, Key: pw.Key, OK: true, Pushes: map[string]uint64{}}
		if row, ok := rows[pw.Key]; ok {
			e.OK, e.FailingSince, e.Error, e.CosignedSize = row.FailingSince == nil, row.FailingSince, row.Error, row.Size
		}
		for _, result := range []string{PushCosigned, PushConflict, PushRefused, PushFailed} {
			e.Pushes[result] = w.pushes[[2]string{pw.Name, result}]
		}
		r.Witnesses = append(r.Witnesses, e)
	}
	return r, nil
}
