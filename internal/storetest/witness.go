package storetest

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

// The log's witnesses (registry.WitnessStore): what they answered is kept
// per witness and per checkpoint size, the witnessed checkpoint only moves
// forward, and one push runs at a time.
func (su suite) testWitnesses(t *testing.T) {
	cosig := func(key, line string, minute int) registry.Cosignature {
		return registry.Cosignature{Key: key, Line: []byte(line), SignedAt: at(minute)}
	}
	state := func(t *testing.T, s registry.Store, size int64) registry.WitnessState {
		t.Helper()
		st, err := s.WitnessState(ctx(), size)
		if err != nil {
			t.Fatalf("WitnessState(%d): %v", size, err)
		}
		return st
	}

	t.Run("a new log knows no witness and has no witnessed checkpoint", func(t *testing.T) {
		s := su.store(t)
		st := state(t, s, 0)
		if len(st.Witnesses) != 0 || len(st.Cosignatures) != 0 || st.WitnessedSize != -1 || st.Witnessed != nil {
			t.Errorf("WitnessState = %+v, want nothing", st)
		}
		if _, _, ok, err := s.WitnessedCheckpoint(ctx()); ok || err != nil {
			t.Errorf("WitnessedCheckpoint: ok %v, %v; want none", ok, err)
		}
	})

	t.Run("a round keeps the witnesses, their cosignatures and the witnessed checkpoint", func(t *testing.T) {
		s := su.store(t)
		since := at(3).In(cet)
		err := s.SaveWitnessRound(ctx(), registry.WitnessRound{Size: 4,
			Cosignatures: []registry.Cosignature{cosig("w1key", "— w1 AAAA\n", 2)},
			Witnesses: []registry.WitnessStatus{
				{Key: "w1key", Size: 4, CheckedAt: at(2)},
				{Key: "w2key", Size: 3, FailingSince: &since, Error: "no answer", CheckedAt: at(3)},
			}})
		if err != nil {
			t.Fatalf("SaveWitnessRound: %v", err)
		}
		st := state(t, s, 4)
		if len(st.Witnesses) != 2 || st.Witnesses[0].Key != "w1key" || st.Witnesses[0].Size != 4 || st.Witnesses[0].FailingSince != nil ||
			!st.Witnesses[0].CheckedAt.Equal(at(2)) {
			t.Fatalf("witnesses %+v", st.Witnesses)
		}
		w2 := st.Witnesses[1]
		if w2.Size != 3 || w2.FailingSince == nil || !w2.FailingSince.Equal(at(3)) || w2.FailingSince.Location() != time.UTC || w2.Error != "no answer" {
			t.Errorf("the failing witness: %+v", w2)
		}
		if len(st.Cosignatures) != 1 || string(st.Cosignatures[0].Line) != "— w1 AAAA\n" || !st.Cosignatures[0].SignedAt.Equal(at(2)) {
			t.Errorf("cosignatures of 4: %+v", st.Cosignatures)
		}
		if got := state(t, s, 5).Cosignatures; len(got) != 0 {
			t.Errorf("cosignatures of 5: %+v, want none", got)
		}
		if st.Witnessed != nil {
			t.Errorf("witnessed %q without a quorum", st.Witnessed)
		}

		// The next round: w2 answers again, w1's cosignature is refreshed,
		// and the quorum is met.
		err = s.SaveWitnessRound(ctx(), registry.WitnessRound{Size: 4,
			Cosignatures: []registry.Cosignature{cosig("w1key", "— w1 BBBB\n", 9), cosig("w2key", "— w2 CCCC\n", 9)},
			Witnesses:    []registry.WitnessStatus{{Key: "w1key", Size: 4, CheckedAt: at(9)}, {Key: "w2key", Size: 4, CheckedAt: at(9)}},
			Witnessed:    []byte("checkpoint 4\n— w1 BBBB\n— w2 CCCC\n")})
		if err != nil {
			t.Fatalf("SaveWitnessRound: %v", err)
		}
		st = state(t, s, 4)
		if st.Witnesses[1].FailingSince != nil || st.Witnesses[1].Error != "" || st.Witnesses[1].Size != 4 {
			t.Errorf("the witness back: %+v", st.Witnesses[1])
		}
		if len(st.Cosignatures) != 2 || string(st.Cosignatures[0].Line) != "— w1 BBBB\n" || !st.Cosignatures[0].SignedAt.Equal(at(9)) {
			t.Errorf("cosignatures of 4: %+v", st.Cosignatures)
		}
		size, note, ok, err := s.WitnessedCheckpoint(ctx())
		if err != nil || !ok || size != 4 || string(note) != "checkpoint 4\n— w1 BBBB\n— w2 CCCC\n" {
			t.Errorf("WitnessedCheckpoint = %d %q %v %v", size, note, ok, err)
		}
		if st.WitnessedSize != 4 || !bytes.Equal(st.Witnessed, note) {
			t.Errorf("WitnessState's witnessed: %d %q", st.WitnessedSize, st.Witnessed)
		}
	})

	t.Run("the witnessed checkpoint only moves forward, and older cosignatures go", func(t *testing.T) {
		s := su.store(t)
		save := func(size int64, witnessed string) {
			t.Helper()
			if err := s.SaveWitnessRound(ctx(), registry.WitnessRound{Size: size,
				Cosignatures: []registry.Cosignature{cosig("w1key", "— w1 line\n", int(size))}, Witnessed: []byte(witnessed)}); err != nil {
				t.Fatalf("SaveWitnessRound(%d): %v", size, err)
			}
		}
		save(5, "checkpoint 5\n")
		save(7, "checkpoint 7\n")
		save(6, "checkpoint 6\n") // a replica's round that read an older checkpoint
		if size, note, _, _ := s.WitnessedCheckpoint(ctx()); size != 7 || string(note) != "checkpoint 7\n" {
			t.Errorf("witnessed %d %q, want 7", size, note)
		}
		if got := state(t, s, 5).Cosignatures; len(got) != 0 {
			t.Errorf("cosignatures of 5 kept below the witnessed 7: %+v", got)
		}
		if got := state(t, s, 7).Cosignatures; len(got) != 1 {
			t.Errorf("cosignatures of 7: %+v", got)
		}
		save(7, "checkpoint 7, refreshed\n")
		if _, note, _, _ := s.WitnessedCheckpoint(ctx()); string(note) != "checkpoint 7, refreshed\n" {
			t.Errorf("the refreshed witnessed checkpoint of the same size is not kept: %q", note)
		}
	})

	t.Run("one turn at a time", func(t *testing.T) {
		s := su.store(t)
		var inner bool
		ran, err := s.WitnessTurn(ctx(), func(ctx context.Context) error {
			var err error
			inner, err = s.WitnessTurn(ctx, func(context.Context) error {
				t.Error("a second turn ran during the first")
				return nil
			})
			return err
		})
		if !ran || err != nil || inner {
			t.Errorf("WitnessTurn: ran %v, %v; the turn inside it ran %v", ran, err, inner)
		}
		if ran, err := s.WitnessTurn(ctx(), func(context.Context) error { return nil }); !ran || err != nil {
			t.Errorf("a turn after the first: ran %v, %v", ran, err)
		}
	})
}
