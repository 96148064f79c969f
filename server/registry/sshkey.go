package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pact-registry/pact/pkg/sshsign"
)

// AddSSHKey registers a public key (one authorized_keys line) for signed
// publishing. The name defaults to the key's comment.
func (s *Service) AddSSHKey(ctx context.Context, accountID int64, publicKey, name string) (*SSHKey, error) {
	owner, err := s.userByID(ctx, accountID)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(publicKey) == "" {
		return nil, Errorf(Invalid, "public_key is required: one line of the form \"ssh-ed25519 AAAA... comment\"")
	}
	pub, comment, err := sshsign.ParseAuthorizedKey(publicKey)
	if err != nil {
		return nil, Errorf(Invalid, "public_key: %s", err.Error())
	}
	name = strings.TrimSpace(name)
	field := "name"
	if name == "" {
		name, field = comment, "name (the key's comment)"
	}
	if err := checkLabel(field, name, 100, false); err != nil {
		return nil, err
	}
	if len(name) > 100 {
		return nil, Errorf(Invalid, "%s must be one line of at most 100 characters", field)
	}
	k := &SSHKey{
		AccountID:   accountID,
		Name:        name,
		Type:        pub.Type(),
		Fingerprint: sshsign.Fingerprint(pub),
		PublicKey:   sshsign.MarshalPublicKey(pub),
		CreatedAt:   s.now(),
	}
	if err := CreateSSHKey(ctx, s.store, k, owner.Username); err != nil {
		return nil, err
	}
	if s.auditing() {
		actor := s.username(ctx, accountID)
		s.emit(ctx, Event{Action: ActionKeyAdd, Actor: actor, KeyFingerprint: k.Fingerprint,
			Message: fmt.Sprintf("%s added %s", actor, describeKey(k))})
	}
	return k, nil
}

// SignedPublishRequest is a publish authenticated by an SSH signature over
// the six-line message of sshsign.Message.
type SignedPublishRequest struct {
	PublishRequest
	Timestamp   int64
	Nonce       string
	Fingerprint string
	Signature   string
}

// VerifiedPublish is a signed publish whose signature checked out; only the
// nonce remains to be spent, by PublishVerified.
type VerifiedPublish struct {
	Key    *SSHKey
	Owner  *Account // the namespace published into
	Signer *Account // the key's account
	input  PublishInput
}

// signatureFailure is a 400 of the signed-publish checks, labelled for metrics.
func signatureFailure(reason, format string, args ...any) *Error {
	e := Errorf(Invalid, format, args...)
	e.Reason = reason
	return e
}

// VerifySigned checks a signed publish in the order the interface lists the
// checks, each with its own message: field formats, single-line name and
// description, timestamp window, known key, the key inside the signature,
// namespace, the signature over the exact message, a timestamp not older
// than the key's registration less the window's lag. Then it parses the document (only after the
// signature holds, so anonymous requests cannot make the server parse large
// documents).
func (s *Service) VerifySigned(ctx context.Context, req SignedPublishRequest) (*VerifiedPublish, error) {
	if len(req.Content) == 0 {
		return nil, signatureFailure("malformed", "content is required")
	}
	if !sshsign.ValidNonce(req.Nonce) {
		return nil, signatureFailure("malformed", "nonce must be 16-128 characters of A-Z, a-z, 0-9, '.', '_', '-'")
	}
	if !strings.HasPrefix(req.Fingerprint, "SHA256:") || len(req.Fingerprint) > 100 {
		return nil, signatureFailure("malformed", "fingerprint must look like SHA256:... as printed by ssh-keygen -lf")
	}
	if strings.TrimSpace(req.Signature) == "" {
		return nil, signatureFailure("malformed", "signature is required: the armored output of ssh-keygen -Y sign -n pact")
	}
	message, err := sshsign.Message(req.Timestamp, req.Nonce, req.Content, req.Name, req.Description)
	if err != nil {
		return nil, signatureFailure("malformed", "%s", err.Error())
	}
	now := s.now()
	skew := now.Sub(time.Unix(req.Timestamp, 0))
	if skew > sshsign.MaxSkew || skew < -sshsign.MaxSkew {
		return nil, signatureFailure("timestamp", "timestamp %d is outside the accepted window of ±%d seconds of the server's clock (now %d)",
			req.Timestamp, int(sshsign.MaxSkew/time.Second), now.Unix())
	}
	key, signer, err := s.store.KeyHolder(ctx, req.Fingerprint)
	if IsCode(err, NotFound) {
		return nil, signatureFailure("unknown_key", "no SSH key with fingerprint %s is registered", req.Fingerprint)
	}
	if err != nil {
		return nil, err
	}
	// The key is parsed with today's rules, so a key registered before a
	// bound was tightened (an RSA key too long to verify cheaply) is refused
	// before any signature work is done with it.
	registered, _, err := sshsign.ParseAuthorizedKey(key.PublicKey)
	if err != nil {
		return nil, signatureFailure("key_refused", "the SSH key %s is no longer accepted for signing: %s; register another key", key.Fingerprint, err.Error())
	}
	if err := sshsign.Verify(req.Signature, message, registered); err != nil {
		return nil, signatureError(err)
	}
	// A signature dated before its key was registered is refused, in
	// whole seconds as timestamps are, allowing a signer's clock the same
	// lag behind the server's as the timestamp window does: a key used the
	// second it was added, by a client a little behind, is not refused.
	// Replays stay closed by the nonces, spent by fingerprint and kept for
	// twice the window, after the key is deleted too. Checked only once the
	// signature holds, so it tells nothing to someone without the key.
	if registeredAt := key.CreatedAt.Unix(); req.Timestamp < registeredAt-int64(sshsign.MaxSkew/time.Second) {
		return nil, signatureFailure("before_key_registration",
			"timestamp %d is more than %d seconds older than the registration of SSH key %s (at %d): a signature made before its key was registered is refused; sign again with the current time",
			req.Timestamp, int(sshsign.MaxSkew/time.Second), key.Fingerprint, registeredAt)
	}
	if err := checkAccountEnabled(signer); err != nil {
		return nil, err
	}
	// A signed name line owner/pack names the namespace; being signed,
	// it cannot be moved into another (docs/protocol.md, Organisations).
	owner, name, err := s.resolveOwner(ctx, signer, "", req.Name)
	if err != nil {
		return nil, err
	}
	unsigned := req.PublishRequest
	unsigned.Name = name
	in, err := s.preparePublish(owner, unsigned)
	if err != nil {
		return nil, err
	}
	in.PublisherID = signer.ID
	in.Provenance = &Provenance{
		KeyID: key.ID, Fingerprint: key.Fingerprint, Timestamp: req.Timestamp, Nonce: req.Nonce, Signature: req.Signature,
		SignedLinesKnown: true, SignedName: req.Name, SignedDescription: req.Description, PublicKey: key.PublicKey,
	}
	return &VerifiedPublish{Key: key, Owner: owner, Signer: signer, input: in}, nil
}

// PublishVerified publishes in the transaction that spends the nonce, so a
// replayed request cannot publish twice, even on another replica.
func (s *Service) PublishVerified(ctx context.Context, v *VerifiedPublish) (*Package, bool, error) {
	if err := s.keepDocument(ctx, &v.input); err != nil {
		return nil, false, err
	}
	pkg, created, err := PublishVersion(ctx, s.store, v.input)
	if err != nil {
		return nil, false, err
	}
	if err := s.store.TouchSSHKey(ctx, v.Key.ID, v.input.Now); err != nil {
		return nil, false, err
	}
	pkg.Warnings = v.input.Warnings
	if created && s.auditing() {
		s.emit(ctx, publishEvent(v.Signer.Username, pkg, v.input.Version, "ssh "+v.Key.Fingerprint))
	}
	return pkg, created, nil
}

// PublishSigned is VerifySigned followed by PublishVerified.
func (s *Service) PublishSigned(ctx context.Context, req SignedPublishRequest) (*Package, bool, error) {
	v, err := s.VerifySigned(ctx, req)
	if err != nil {
		return nil, false, err
	}
	return s.PublishVerified(ctx, v)
}

func signatureError(err error) error {
	switch {
	case errors.Is(err, sshsign.ErrSignatureMalformed):
		return signatureFailure("malformed_signature", "signature is not an armored SSH signature (-----BEGIN SSH SIGNATURE-----)")
	case errors.Is(err, sshsign.ErrSignatureKeyMismatch):
		return signatureFailure("key_mismatch", "signature was made by another key than the one named by fingerprint")
	case errors.Is(err, sshsign.ErrSignatureNamespace):
		return signatureFailure("namespace", "signature namespace must be %q (ssh-keygen -Y sign -n %s)", sshsign.Namespace, sshsign.Namespace)
	default:
		return signatureFailure("bad_signature", "signature does not verify over the six-line pact-publish-v1 message")
	}
}

// ListSSHKeys lists an account's keys, oldest first.
func (s *Service) ListSSHKeys(ctx context.Context, accountID int64) ([]SSHKey, error) {
	return s.store.ListSSHKeys(ctx, accountID)
}

// DeleteSSHKey deletes one of accountID's keys; NotFound when the key does
// not exist or belongs to someone else. Versions it signed keep their
// provenance, and its spent nonces stay spent.
func (s *Service) DeleteSSHKey(ctx context.Context, accountID, keyID int64) error {
	at := s.now()
	if !s.auditing() {
		return RemoveSSHKey(ctx, s.store, accountID, keyID, at)
	}
	// The key is described before it is gone.
	key := &SSHKey{ID: keyID}
	if keys, err := s.store.ListSSHKeys(ctx, accountID); err == nil {
		for i := range keys {
			if keys[i].ID == keyID {
				key = &keys[i]
			}
		}
	}
	if err := RemoveSSHKey(ctx, s.store, accountID, keyID, at); err != nil {
		return err
	}
	actor := s.username(ctx, accountID)
	s.emit(ctx, Event{Action: ActionKeyRemove, Actor: actor, KeyFingerprint: key.Fingerprint,
		Message: fmt.Sprintf("%s removed %s", actor, describeKey(key))})
	return nil
}

// describeKey is "SSH key 3 SHA256:… (laptop)".
func describeKey(k *SSHKey) string {
	if k.Fingerprint == "" {
		return fmt.Sprintf("SSH key %d", k.ID)
	}
	return fmt.Sprintf("SSH key %d %s (%s)", k.ID, k.Fingerprint, k.Name)
}

// AuthorizedKeys lists the keys of the account named username, oldest
// first; for an organisation, the keys of its members (every role may
// publish), member by member. NotFound when there is no such account.
func (s *Service) AuthorizedKeys(ctx context.Context, username string) ([]SSHKey, error) {
	acct, err := s.AccountByUsername(ctx, username)
	if err != nil {
		return nil, err
	}
	if !acct.IsOrg() {
		return s.store.ListSSHKeys(ctx, acct.ID)
	}
	members, err := s.store.OrgMembers(ctx, acct.ID)
	if err != nil {
		return nil, err
	}
	var keys []SSHKey
	for _, m := range members {
		k, err := s.store.ListSSHKeys(ctx, m.AccountID)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k...)
	}
	return keys, nil
}

// checkUserID refuses what only a user may hold (keys, tokens) for an
// organisation's id.
func (s *Service) checkUserID(ctx context.Context, accountID int64) error {
	_, err := s.userByID(ctx, accountID)
	return err
}

// userByID answers the account accountID, which must be a user (checkUser).
func (s *Service) userByID(ctx context.Context, accountID int64) (*Account, error) {
	acct, err := s.store.AccountByID(ctx, accountID)
	if err != nil {
		return nil, err
	}
	return acct, checkUser(acct)
}

// CreateSSHKey stores k (setting its ID) for its account, whose username
// is owner, with its key-add entry, in one transaction of st. Conflict
// when any account has registered its fingerprint; NotFound when the
// account does not exist.
func CreateSSHKey(ctx context.Context, st Transactor, k *SSHKey, owner string) error {
	entry := KeyLogEntry(true, owner, k, k.CreatedAt)
	return st.Tx(ctx, func(tx Tx) error {
		if err := accountThere(tx.AccountExists, k.AccountID); err != nil {
			return err
		}
		if err := tx.InsertSSHKey(k); err != nil {
			return err
		}
		_, err := appendEntry(tx, entry, 0)
		return err
	})
}

// RemoveSSHKey deletes one of accountID's keys at at, in one transaction
// of st with its key-remove entry, built from the key and its owner's
// username as the transaction finds them; NotFound when accountID has no
// such key. Versions it signed keep their provenance, and its spent nonces
// stay spent.
func RemoveSSHKey(ctx context.Context, st Transactor, accountID, keyID int64, at time.Time) error {
	return st.Tx(ctx, func(tx Tx) error {
		k, owner, err := tx.SSHKeyOf(accountID, keyID)
		if err != nil {
			return err
		}
		if err := tx.DeleteSSHKeyRow(keyID); err != nil {
			return err
		}
		_, err = appendEntry(tx, KeyLogEntry(false, owner, k, at), 0)
		return err
	})
}
