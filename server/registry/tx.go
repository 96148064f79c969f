package registry

import (
	"context"
	"time"

	"github.com/pact-registry/pact/pkg/translog"
)

// Transactor runs the domain's changes in transactions of the store
// (Store.Tx). A change is a function of the domain that reads and writes
// rows through a Tx and decides every rule itself; the store only opens,
// commits and, when the engine asks for it, reruns the transaction.
type Transactor interface {
	// Tx runs fn in one transaction and answers nil once its changes
	// committed, or the error that stopped them (fn's, or the
	// database's). fn may run in a savepoint of a transaction shared with
	// other callers (SQLite's group commit: one fsync for a batch) and may
	// run more than once (PostgreSQL reruns a transaction that lost a race
	// with another replica), so it sets whatever it answers afresh on
	// each run and does nothing outside tx. The Tx is valid only while fn
	// runs; it carries the transaction's own deadline.
	Tx(ctx context.Context, fn func(Tx) error) error
}

// Tx reads and writes rows in one transaction of the store. Its methods
// decide nothing: a missing row is answered as such (false, "", nil, or a
// NotFound for the rows an operation names), and every rule is the
// caller's. Errors other than *Error are the database's faults; return
// them from the function given to Transactor.Tx as they are, so the store
// can tell a lost race (and run the function again) from a fault.
type Tx interface {
	// SpendNonce records nonce as spent under fingerprint at at; false
	// when it was spent under that fingerprint already.
	SpendNonce(fingerprint, nonce string, at time.Time) (bool, error)
	// SSHKeyHas reports whether the key row keyID still exists with
	// fingerprint.
	SSHKeyHas(keyID int64, fingerprint string) (bool, error)
	// MemberRole reads accountID's role in the organisation orgID; ""
	// when it is not a member.
	MemberRole(orgID, accountID int64) (Role, error)

	// PackageFor finds in's package (owner and slug), or creates its row
	// with in's fields and no latest version; a row created only becomes
	// visible with the rest of the transaction.
	PackageFor(in *PublishInput) (packageID int64, err error)
	// InsertVersion adds in's version to the package packageID and
	// answers its row, or inserted false and nothing written when the
	// package has that version already. ErrSSHKeyGone when in's signing
	// key row was deleted by a transaction that committed meanwhile.
	InsertVersion(packageID int64, in *PublishInput) (v *Version, inserted bool, err error)
	// VersionRow reads the version of packageID as the transaction finds
	// it, with only ID, PackageID, Version, SHA256, CreatedAt and
	// LogIndex.
	VersionRow(packageID int64, version string) (*Version, error)
	// PackageByID reads a package as the transaction finds it.
	PackageByID(packageID int64) (*Package, error)
	// TouchPackage sets the package's updated_at to at, which holds its
	// row until the transaction ends (on PostgreSQL a lock; SQLite has one
	// writer), and answers the package as the row then is, with its
	// latest version ("" while it has none).
	TouchPackage(packageID int64, at time.Time) (pkg *Package, latest string, err error)
	// SetLatest makes v (its ID, Version, Name, Description, Scheme and
	// SHA256) the package's latest version, the package taking its name,
	// description and scheme; nil leaves the package without one
	// (Version and SHA256 "", LatestVersionID 0; name, description and
	// scheme stay).
	SetLatest(packageID int64, v *Version) error
	// LockPackage holds the package's row until the transaction ends
	// (on PostgreSQL a lock; SQLite has one writer) without changing it,
	// and answers the package as the row then is; NotFound when
	// packageID is no package.
	LockPackage(packageID int64) (*Package, error)
	// VersionOf reads the version of packageID named version as the
	// transaction finds it; nil when the package has none.
	VersionOf(packageID int64, version string) (*Version, error)
	// SetYanked yanks the version versionID with reason, at at unless it
	// is yanked already (its YankedAt stays), or (yanked false) un-yanks
	// it.
	SetYanked(versionID int64, yanked bool, reason string, at time.Time) error
	// UnyankedVersions lists the package's versions that are not yanked,
	// in publish order, with only ID, PackageID, Version, Name,
	// Description, Scheme and SHA256.
	UnyankedVersions(packageID int64) ([]Version, error)
	// SetDeprecated sets the package's deprecation message ("": none).
	SetDeprecated(packageID int64, message string) error
	// SetTrustedPublishingOnly sets the package's trusted-publishing-only
	// setting.
	SetTrustedPublishingOnly(packageID int64, only bool) error
	// PackState reads the package's state (PackState) as the transaction
	// finds it.
	PackState(packageID int64) (PackState, error)
	// SetLogHead records index as the package's newest pack-state entry.
	SetLogHead(packageID, index int64) error

	// LockOrg holds the organisation's row until the transaction ends
	// (on PostgreSQL a lock; SQLite has one writer), so that changes of
	// one organisation's members take turns; NotFound when orgID is no
	// organisation.
	LockOrg(orgID int64) error
	// CountMembers counts orgID's members, only those of role when role
	// is not "".
	CountMembers(orgID int64, role Role) (int64, error)
	// AddMember makes accountID a member of orgID with role since at.
	AddMember(orgID, accountID int64, role Role, at time.Time) error
	// SetMemberRole changes a member's role.
	SetMemberRole(orgID, accountID int64, role Role) error
	// DeleteMember removes accountID from orgID's members.
	DeleteMember(orgID, accountID int64) error
	// Member reads a membership as the transaction finds it.
	Member(orgID, accountID int64) (*Member, error)
	// TrustedPublishersMadeBy lists the trusted publishers of accountID
	// (an organisation) that maker made, oldest first.
	TrustedPublishersMadeBy(accountID, maker int64) ([]TrustedPublisher, error)
	// DeleteTrustedPublisherRow deletes the trusted publisher id.
	DeleteTrustedPublisherRow(id int64) error
	// ActiveExchangedTokens lists accountID's tokens exchanged through
	// trusted publishers that are active at at, by id.
	ActiveExchangedTokens(accountID int64, at time.Time) ([]ExchangedToken, error)
	// RevokeTokenAt revokes the token id at at.
	RevokeTokenAt(id int64, at time.Time) error

	// SSHKeyOf reads accountID's key keyID (its public key and
	// fingerprint) and its owner's username; NotFound when accountID has
	// no such key.
	SSHKeyOf(accountID, keyID int64) (k *SSHKey, owner string, err error)
	// DeleteSSHKeyRow deletes the key keyID; versions it signed keep
	// their provenance, only the link to the key goes.
	DeleteSSHKeyRow(keyID int64) error

	// DeleteExpiredSessions deletes every session that expired at or
	// before at.
	DeleteExpiredSessions(at time.Time) error
	// InsertSession stores sess and sets its ID; NotFound when its
	// account does not exist, Conflict when a session has its hash.
	InsertSession(sess *Session) error
	// DeleteSessionsBeyond deletes accountID's sessions but the keep
	// most recently seen.
	DeleteSessionsBeyond(accountID int64, keep int) error

	// HasVersion reports whether versionID is a version of packageID.
	HasVersion(packageID, versionID int64) (bool, error)
	// InsertRelease stores r (setting ID) for its version, or answers
	// inserted false and writes nothing when the version has a release.
	InsertRelease(r *Release) (inserted bool, err error)
	// ReleaseOfVersion reads the release of the version versionID as the
	// transaction finds it.
	ReleaseOfVersion(versionID int64) (*Release, error)
	// SetReleaseLogIndex records index as the log index of the release
	// id.
	SetReleaseLogIndex(id, index int64) error

	// InsertSSHKey stores k and sets its ID; Conflict when any account
	// has registered its fingerprint, NotFound when its account does not
	// exist.
	InsertSSHKey(k *SSHKey) error
	// InsertOrg stores org as an organisation (Kind KindOrg) and sets
	// its ID; Conflict when its name is taken.
	InsertOrg(org *Account) error

	// AccountExists reports whether the account id exists.
	AccountExists(id int64) (bool, error)
	// InsertTrustedPublisher stores p and sets its ID.
	InsertTrustedPublisher(p *TrustedPublisher) error

	// LockAccount holds the account's row until the transaction ends (on
	// PostgreSQL a lock; SQLite has one writer), so that changes counted
	// against one account take turns; false when there is no such
	// account.
	LockAccount(id int64) (bool, error)

	// CountHooksOf counts the hooks of ownerID.
	CountHooksOf(ownerID int64) (int, error)
	// CountHooksMadeBy counts the hooks accountID made (Hook.CreatedBy),
	// in any namespace.
	CountHooksMadeBy(accountID int64) (int, error)
	// InsertHook stores h and sets its ID.
	InsertHook(h *Hook) error

	// FreeRowDocument empties the content of version id, whose document
	// is on the blob store, when its sha256 is sha256; false when there is
	// no such version.
	FreeRowDocument(id int64, sha256 string) (bool, error)

	// CountPasskeys counts accountID's passkeys.
	CountPasskeys(accountID int64) (int, error)
	// DeletePasskeyRow deletes accountID's passkey id; false when
	// accountID has no such passkey.
	DeletePasskeyRow(accountID, id int64) (bool, error)
	// SetRequireSecondFactor sets accountID's require_second_factor;
	// false when there is no such account.
	SetRequireSecondFactor(accountID int64, on bool) (bool, error)
	// DeleteRecoveryCodes deletes accountID's recovery codes.
	DeleteRecoveryCodes(accountID int64) error
	// DeleteExpiredCeremonies deletes every ceremony that expired at or
	// before at.
	DeleteExpiredCeremonies(at time.Time) error
	// DeleteCeremoniesBeyond deletes accountID's ceremonies but the keep
	// most recently made.
	DeleteCeremoniesBeyond(accountID int64, keep int) error
	// InsertCeremony stores c (AccountID 0: none); NotFound when its
	// account does not exist, Conflict when a ceremony has its hash.
	InsertCeremony(c *Ceremony) error

	// CountDeviceLogins counts the device logins that have not expired at
	// at.
	CountDeviceLogins(at time.Time) (int, error)
	// CountDeviceLoginsOfBlock counts the device logins of the address
	// block block that have not expired at at.
	CountDeviceLoginsOfBlock(block string, at time.Time) (int, error)
	// FullestDeviceLoginBlock answers the address block with the most
	// device logins that have not expired at at (of two with as many, the
	// one whose oldest is older); false when there is none.
	FullestDeviceLoginBlock(at time.Time) (string, bool, error)
	// DeleteOldestDeviceLogin deletes the oldest device login of block
	// that has not expired at at.
	DeleteOldestDeviceLogin(block string, at time.Time) error
	// InsertDeviceLogin stores d and sets its ID; Conflict when the hash
	// of its device code or of its user code is stored already.
	InsertDeviceLogin(d *DeviceLogin) error

	// HasTrustedPublisher reports whether accountID has the trusted
	// publisher id.
	HasTrustedPublisher(accountID, id int64) (bool, error)
	// DeleteExpiredJTIs forgets the spent jtis that expired before at.
	DeleteExpiredJTIs(at time.Time) error
	// SpendJTI records issuer's jti as spent until expiresAt; false when
	// it was spent already.
	SpendJTI(issuer, jti string, expiresAt time.Time) (bool, error)
	// InsertToken stores t and sets t.ID; NotFound when its account does
	// not exist, Conflict when a token has its hash.
	InsertToken(t *Token) error

	// AppendLog appends entry to the transparency log and answers its
	// index; versionID, when not 0, is the version whose log index it is.
	// It appends only: the domain queues the entry's webhooks
	// (appendEntry).
	AppendLog(entry *translog.Entry, versionID int64) (int64, error)
	// HooksOf lists the hooks of the owner named owner (in any case)
	// that are not disabled, oldest first.
	HooksOf(owner string) ([]Hook, error)
	// InsertDelivery queues d (its HookID, event, LogIndex, CreatedAt,
	// State, NextAttemptAt and GiveUpAt) and sets its ID.
	InsertDelivery(d *HookDelivery) error
}

// ErrSSHKeyGone is Tx.InsertVersion's answer when the key row a signed
// version names was deleted meanwhile.
var ErrSSHKeyGone = &Error{Code: NotFound, Message: "the SSH key was deleted while the publish signed with it was under way"}

// ExchangedToken is a token exchanged for an ID token, with the trusted
// publishers it was exchanged through.
type ExchangedToken struct {
	ID  int64
	Via []int64
}

// accountThere reads with exists (Tx.AccountExists, or Tx.LockAccount to
// hold the row too) whether account id exists: NotFound when it does not.
func accountThere(exists func(id int64) (bool, error), id int64) error {
	there, err := exists(id)
	if err != nil {
		return err
	}
	if !there {
		return Errorf(NotFound, "no such account %d", id)
	}
	return nil
}
