package registry

import (
	"context"
	"errors"
	"time"

	"github.com/pact-registry/pact/pkg/translog"
)

// PublishVersion stores in's version through st, in one transaction that
// applies the rules of a publish:
//
//   - a signed publish spends its nonce under the key's fingerprint
//     (ErrNonceReused when spent already, with whichever key row or
//     account, even one deleted since) and needs its key row still there
//     with that fingerprint (NotFound otherwise);
//   - a member's publish into an organisation needs the publisher still a
//     member (Forbidden otherwise): Can decided the membership before, and
//     this check in the transaction stops a publish that a removal,
//     committed meanwhile on any replica, should stop;
//   - into a package that exists, the package's own rule of who may
//     publish (admitPublish) decides on the row as the transaction holds
//     it, so a setting changed meanwhile is seen; a refused publisher is
//     not told either that the version exists;
//   - a version that exists with the same SHA256 changes nothing and
//     answers the package; with another SHA256, VersionConflict;
//   - a new version becomes the latest when BecomesLatest says it
//     outranks the current one, and the log gets its entry
//     (PublishLogEntry) and the package's pack-state entry
//     (PackStateLogEntry) as the publish leaves it.
//
// A refusal changes nothing and spends no nonce. created reports whether a
// new version was added; the package's LogIndex and Published name the
// version added, or the identical one found, from what the transaction
// read.
func PublishVersion(ctx context.Context, st Transactor, in PublishInput) (pkg *Package, created bool, err error) {
	entry := PublishLogEntry(in.OwnerSlug, in.PackSlug, in.Version, in.SHA256, int64(len(in.Content)), in.Now, in.Provenance, in.CI)
	err = st.Tx(ctx, func(tx Tx) (err error) {
		pkg, created, err = publishTx(tx, &in, entry)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return pkg, created, nil
}

// publishTx is one run of PublishVersion's transaction.
func publishTx(tx Tx, in *PublishInput, entry *translog.Entry) (*Package, bool, error) {
	if p := in.Provenance; p != nil {
		// By fingerprint, not by key row: the nonces of a key outlive the
		// row, so a key deleted and registered again (in any account)
		// cannot spend them again.
		fresh, err := tx.SpendNonce(p.Fingerprint, p.Nonce, in.Now)
		if err != nil {
			return nil, false, err
		}
		if !fresh {
			return nil, false, ErrNonceReused
		}
		// The signature was checked against this key row; if the row is
		// gone (or its fingerprint now names another row) the publish
		// would be credited to a key that no longer vouches for it.
		there, err := tx.SSHKeyHas(p.KeyID, p.Fingerprint)
		if err != nil {
			return nil, false, err
		}
		if !there {
			return nil, false, keyGone(p)
		}
	}
	if in.PublisherID != 0 && in.PublisherID != in.OwnerID {
		role, err := tx.MemberRole(in.OwnerID, in.PublisherID)
		if err != nil {
			return nil, false, err
		}
		if role == "" {
			return nil, false, Errorf(Forbidden, "the publisher is not a member of the organisation %s", in.OwnerSlug)
		}
	}
	packageID, err := tx.PackageFor(in)
	if err != nil {
		return nil, false, err
	}
	viaCI := in.CI != nil
	// The version is inserted without looking first: a new version, the
	// common case, costs one statement.
	published, inserted, err := tx.InsertVersion(packageID, in)
	switch {
	case errors.Is(err, ErrSSHKeyGone):
		return nil, false, keyGone(in.Provenance)
	case err != nil:
		return nil, false, err
	case !inserted:
		// Republished, or published meanwhile by another replica: the
		// same content is a no-op, other content a conflict.
		published, err = tx.VersionRow(packageID, in.Version)
		if err != nil {
			return nil, false, err
		}
		if published.SHA256 != in.SHA256 {
			return nil, false, VersionConflict(in.OwnerSlug, in.PackSlug, in.Version)
		}
		pkg, err := tx.PackageByID(packageID)
		if err != nil {
			return nil, false, err
		}
		// Nothing changes, but the package's rule still answers: a
		// refused publisher is not told that its version is there.
		if err := admitPublish(pkg, viaCI); err != nil {
			return nil, false, err
		}
		published.Size = int64(len(in.Content))
		pkg.LogIndex, pkg.Published = published.LogIndex, published
		return pkg, false, nil
	}
	// Touching the row first holds it: a concurrent publish of the same
	// package waits here, and then reads the latest this one chose; a
	// setting changed by a transaction that committed first is seen, and
	// one that commits later waits for this one (and comes after it in
	// the log).
	pkg, latest, err := tx.TouchPackage(packageID, in.Now)
	if err != nil {
		return nil, false, err
	}
	if err := admitPublish(pkg, viaCI); err != nil {
		return nil, false, err
	}
	if BecomesLatest(latest, in.Version) {
		latest := &Version{ID: published.ID, Version: in.Version, Name: in.Name, Description: in.Description, Scheme: in.Scheme, SHA256: in.SHA256}
		if err := tx.SetLatest(packageID, latest); err != nil {
			return nil, false, err
		}
		pkg.Name, pkg.Description, pkg.Scheme, pkg.Version, pkg.SHA256 = in.Name, in.Description, in.Scheme, in.Version, in.SHA256
		pkg.LatestVersionID = published.ID
	}
	index, err := appendEntry(tx, entry, published.ID)
	if err != nil {
		return nil, false, err
	}
	if _, err := appendPackState(tx, packageID, in.OwnerSlug, in.PackSlug, in.Now); err != nil {
		return nil, false, err
	}
	published.LogIndex = &index
	pkg.LogIndex, pkg.Published = published.LogIndex, published
	return pkg, true, nil
}

// appendPackState appends the pack-state entry of owner/pack (the package
// packageID) in its state as tx finds it, and makes it the package's log
// head; it answers the entry's index.
func appendPackState(tx Tx, packageID int64, owner, pack string, at time.Time) (int64, error) {
	st, err := tx.PackState(packageID)
	if err != nil {
		return 0, err
	}
	index, err := appendEntry(tx, PackStateLogEntry(owner, pack, st, at), 0)
	if err != nil {
		return 0, err
	}
	return index, tx.SetLogHead(packageID, index)
}

// keyGone is the refusal of a signed publish whose key row was deleted
// while it was under way.
func keyGone(p *Provenance) error {
	return Errorf(NotFound, "SSH key %s was deleted while the publish signed with it was under way", p.Fingerprint)
}

// SeedInput is a version for a bulk load of fresh packages (sqlstore's
// Seed) with its log entries: the version's and its package's first
// pack-state entry.
type SeedInput struct {
	PublishInput
	Entry, State *translog.Entry
}

// ReadyAll answers the SeedInput of each of ins, each the first version of
// a package that does not exist yet.
func ReadyAll(ins []PublishInput) []SeedInput {
	out := make([]SeedInput, len(ins))
	for i, in := range ins {
		out[i] = SeedInput{PublishInput: in,
			Entry: PublishLogEntry(in.OwnerSlug, in.PackSlug, in.Version, in.SHA256, int64(len(in.Content)), in.Now, in.Provenance, in.CI),
			State: PackStateLogEntry(in.OwnerSlug, in.PackSlug, PackState{Latest: in.Version}, in.Now)}
	}
	return out
}
