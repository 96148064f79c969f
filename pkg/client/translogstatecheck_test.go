package client_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/pact-registry/pact/pkg/translog"
)

// state logs a pack-state entry of owner/pack and returns its index.
func (l *testLog) state(owner, pack string, prev int64, latest string, yanked ...string) int64 {
	return l.add(translog.NewPackState(translog.PackStateEvent{
		Time: time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC), Owner: owner, Pack: pack, Prev: prev, Latest: latest, Yanked: yanked,
	}).Marshal())
}

// VerifyPackState refuses the states a dishonest registry could name for a
// package, in a log signed by the registry's own key: none while the log
// holds one, another package's, one naming a yanked version as the latest.
// The honest answers pass.
func TestVerifyPackStateRefusesWhatTheLogDoesNotSay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := newTestLog(t, "example.test/log")
	l.fill(3)
	// alice/old: published before pack-state entries (nothing follows its
	// publish), then stated by the upgrade that brought them, then 2.0.0.
	old1 := l.publish("alice", "old", "1.0.0", []byte("old one"))
	l.fill(2)
	oldState := l.state("alice", "old", -1, "1.0.0")
	old2 := l.publish("alice", "old", "2.0.0", []byte("old two"))
	old2State := l.state("alice", "old", oldState, "2.0.0")
	// alice/widget: 1.0.0 and 2.0.0, each followed by its state.
	l.publish("alice", "widget", "1.0.0", []byte("widget one"))
	w1State := l.state("alice", "widget", -1, "1.0.0")
	w2 := l.publish("alice", "widget", "2.0.0", []byte("widget two"))
	w2State := l.state("alice", "widget", w1State, "2.0.0")
	// alice/gadget 2.0.0, logged later: its state names 2.0.0 too.
	g := l.publish("alice", "gadget", "2.0.0", []byte("gadget two"))
	gState := l.state("alice", "gadget", -1, "2.0.0")
	// A state no honest registry writes: the latest, 2.0.0, yanked.
	yankedLatest := l.state("alice", "widget", w2State, "2.0.0", "2.0.0")
	// alice/bare: a registry from before pack-state entries, none of it.
	bare := l.publish("alice", "bare", "1.0.0", []byte("bare"))
	l.fill(1)

	for _, tc := range []struct {
		name                 string
		pack                 string
		head                 *int64
		versionIndex, logged int64
		text                 string // "" when the state proves
		latest               string
	}{
		{"the newest state", "widget", &w2State, w2, w2, "", "2.0.0"},
		{"a registry from before pack-state entries", "bare", nil, bare, bare, "", ""},
		{"no head, while the state follows the version's publish", "widget", nil, w2, w2,
			"the registry names no state of alice/widget in its log, but the log's entry " + itoa(w2State) + ", after the publish at " + itoa(w2) + ", states it", ""},
		{"no head, for a version of before the states, while one follows a newer publish", "old", nil, old1, old2,
			"the registry names no state of alice/old in its log, but the log's entry " + itoa(old2State) + ", after the publish at " + itoa(old2) + ", states it", ""},
		{"another package's later state, naming the same version", "widget", &gState, w2, w2,
			"the log's entry " + itoa(gState) + ", which the registry names as the state of alice/widget, states alice/gadget", ""},
		{"a state naming a yanked version as the latest", "widget", &yankedLatest, w2, w2,
			"the log's entry " + itoa(yankedLatest) + " names 2.0.0 as the latest version of alice/widget and as yanked", ""},
		{"a stale state", "widget", &w1State, w2, w2, "lists a version of it logged later", ""},
		{"a publish as the state", "widget", &g, w2, w2, "the log's entry " + itoa(g) + ", which the registry names as the state of alice/widget, is not a pack-state entry", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := logVerifier(t, l.srv.URL, l.vkey, t.TempDir())
			st, err := v.VerifyPackState(ctx, mustLatest(t, v), "alice", tc.pack, tc.head, tc.versionIndex, tc.logged)
			if tc.text != "" {
				wantVerificationError(t, err, "state", tc.text)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.head == nil && st != nil:
				t.Errorf("no head proved the state of entry %d", st.Index)
			case tc.head != nil && (st == nil || st.Index != *tc.head || st.State.Latest != tc.latest):
				t.Errorf("state %+v, want entry %d naming %s the latest", st, *tc.head, tc.latest)
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
