package client

import (
	"context"

	"github.com/pact-registry/pact/pkg/translog"
)

// StateProof is what VerifyPackState proved of a package's state: the log's
// pack-state entry at Index, included in Checkpoint, states State
// (docs/protocol.md, Package state).
type StateProof struct {
	Index      int64
	Checkpoint *Checkpoint
	State      translog.PackStateEvent
}

// VerifyPackState proves the state of owner/pack that the registry names
// as its newest, the pack-state entry at head: it is included in cp (or,
// when cp does not reach it yet, in a newer checkpoint that extends it),
// states owner/pack, names no yanked version as latest, and comes after
// every publish of the package the registry lists (logged, the highest of
// their log indexes, -1 for none): each publish is followed by its
// package's state, so an older state is a stale one.
//
// head nil answers nil, nil (the log holds no state of the package: a
// registry from before pack-state entries), unless the entry that follows
// the publish at versionIndex, or the one that follows the newest publish
// the registry lists (at logged), states the package: then the registry
// hides a state the log holds. A version published before pack-state
// entries has none after it, but a newer one of the package does.
func (v *LogVerifier) VerifyPackState(ctx context.Context, cp *Checkpoint, owner, pack string, head *int64, versionIndex, logged int64) (*StateProof, error) {
	if head == nil {
		for i, publish := range []int64{versionIndex, logged} {
			if publish < 0 || publish+1 >= cp.Size || (i == 1 && publish == versionIndex) {
				continue
			}
			if _, e, err := v.ProveEntry(ctx, cp, publish+1); err != nil {
				return nil, err
			} else if statesPack(e, owner, pack) {
				return nil, verifyErrorf("state", "the registry names no state of %s/%s in its log, but the log's entry %d, after the publish at %d, states it", owner, pack, publish+1, publish)
			}
		}
		return nil, nil
	}
	index := *head
	if index < 0 || index >= maxTreeSize {
		return nil, verifyErrorf("state", "the registry gives %s/%s the impossible log head %d", owner, pack, index)
	}
	if index <= logged {
		return nil, verifyErrorf("state", "the registry names entry %d as the newest state of %s/%s in its log, but lists a version of it logged later, at %d: a stale state",
			index, owner, pack, logged)
	}
	if index >= cp.Size {
		newer, err := v.Latest(ctx, index+1)
		if err != nil {
			return nil, err
		}
		cp = newer
	}
	_, e, err := v.ProveEntry(ctx, cp, index)
	if err != nil {
		return nil, err
	}
	st, err := e.PackState()
	if err != nil {
		return nil, verifyErrorf("state", "the log's entry %d, which the registry names as the state of %s/%s, is not a pack-state entry: %v", index, owner, pack, err)
	}
	if st.Owner != owner || st.Pack != pack {
		return nil, verifyErrorf("state", "the log's entry %d, which the registry names as the state of %s/%s, states %s/%s", index, owner, pack, st.Owner, st.Pack)
	}
	if st.Latest != "" && st.IsYanked(st.Latest) {
		return nil, verifyErrorf("state", "the log's entry %d names %s as the latest version of %s/%s and as yanked", index, st.Latest, owner, pack)
	}
	return &StateProof{Index: index, Checkpoint: cp, State: st}, nil
}

// statesPack reports whether e is a pack-state entry of owner/pack.
func statesPack(e *translog.Entry, owner, pack string) bool {
	st, err := e.PackState()
	return err == nil && st.Owner == owner && st.Pack == pack
}
