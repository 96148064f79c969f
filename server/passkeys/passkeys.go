// Package passkeys is the relying party of pactd's passkeys
// (registry.RelyingParty) on go-webauthn, which does every check of the
// WebAuthn ceremonies (challenge, origin, RP ID, signature, flags). The
// library's types stay here: the domain sees a ceremony's state as bytes,
// the browser's options as JSON and a passkey as registry.Passkey.
package passkeys

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"net"
	"net/url"
	"strings"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/pact-registry/pact/server/registry"
)

// RelyingParty is pactd as WebAuthn knows it: its RP ID is the host of
// --base-url and the only origin it accepts is the base URL's.
type RelyingParty struct {
	w *webauthn.WebAuthn
}

var _ registry.RelyingParty = (*RelyingParty)(nil)

// New is the relying party of baseURL. Browsers allow passkeys only on a
// domain name (localhost included), never on an IP address, and only in a
// secure context (https, or http on localhost).
func New(baseURL string) (*RelyingParty, error) {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return nil, errors.New("passkeys need --base-url to be an absolute URL")
	}
	host := u.Hostname()
	if net.ParseIP(host) != nil {
		return nil, errors.New("passkeys need --base-url to name the host by a domain name, not an IP address")
	}
	if u.Scheme != "https" && host != "localhost" && !strings.HasSuffix(host, ".localhost") {
		return nil, errors.New("passkeys need --base-url to be https (or http on localhost)")
	}
	origin := u.Scheme + "://" + u.Host
	w, err := webauthn.New(&webauthn.Config{RPID: host, RPDisplayName: "pact (" + u.Host + ")", RPOrigins: []string{origin}})
	if err != nil {
		return nil, err
	}
	return &RelyingParty{w: w}, nil
}

// user is an account as go-webauthn sees it.
type user struct {
	acct        *registry.Account
	credentials []webauthn.Credential
}

// WebAuthnID is the user handle: the account's id, 8 bytes big-endian,
// which names no one outside this registry.
func (u *user) WebAuthnID() []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(u.acct.ID))
}
func (u *user) WebAuthnName() string                       { return u.acct.Username }
func (u *user) WebAuthnDisplayName() string                { return u.acct.Username }
func (u *user) WebAuthnCredentials() []webauthn.Credential { return u.credentials }

func newUser(pu registry.PasskeyUser) (*user, error) {
	u := &user{acct: pu.Account}
	for i := range pu.Passkeys {
		p := &pu.Passkeys[i]
		var c webauthn.Credential
		if err := json.Unmarshal(p.Record, &c); err != nil {
			return nil, err
		}
		c.ID, c.PublicKey, c.Authenticator.SignCount = p.CredentialID, p.PublicKey, p.SignCount
		u.credentials = append(u.credentials, c)
	}
	return u, nil
}

// begun answers the options and the session of a ceremony begun, as JSON.
func begun(options any, session *webauthn.SessionData, err error) (json.RawMessage, []byte, error) {
	if err != nil {
		return nil, nil, err
	}
	o, err := json.Marshal(options)
	if err != nil {
		return nil, nil, err
	}
	s, err := json.Marshal(session)
	if err != nil {
		return nil, nil, err
	}
	return o, s, nil
}

func readSession(session []byte) (*webauthn.SessionData, error) {
	var s webauthn.SessionData
	if err := json.Unmarshal(session, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// refusal words a refusal of go-webauthn for the domain: the library's
// details, which say which check failed, never its internals.
func refusal(malformed bool, err error) error {
	r := &registry.PasskeyRefusal{Malformed: malformed}
	var perr *protocol.Error
	if errors.As(err, &perr) {
		r.Details = perr.Details
	}
	return r
}

// BeginRegistration asks for a discoverable credential verified by the
// user, excluding those the account has.
func (rp *RelyingParty) BeginRegistration(pu registry.PasskeyUser) (json.RawMessage, []byte, error) {
	u, err := newUser(pu)
	if err != nil {
		return nil, nil, err
	}
	return begun(rp.w.BeginRegistration(u,
		webauthn.WithResidentKeyRequirement(protocol.ResidentKeyRequirementRequired),
		webauthn.WithExclusions(webauthn.Credentials(u.credentials).CredentialDescriptors()),
		webauthn.WithAuthenticatorSelection(protocol.AuthenticatorSelection{
			ResidentKey: protocol.ResidentKeyRequirementRequired, RequireResidentKey: protocol.ResidentKeyRequired(),
			UserVerification: protocol.VerificationRequired})))
}

// FinishRegistration checks the browser's answer and answers the new
// passkey's credential (its id, key, counter, transports and record).
func (rp *RelyingParty) FinishRegistration(pu registry.PasskeyUser, session, answer []byte) (*registry.Passkey, error) {
	sd, err := readSession(session)
	if err != nil {
		return nil, err
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(answer)
	if err != nil {
		return nil, refusal(true, err)
	}
	u, err := newUser(pu)
	if err != nil {
		return nil, err
	}
	cred, err := rp.w.CreateCredential(u, *sd, parsed)
	if err != nil {
		return nil, refusal(false, err)
	}
	record, err := json.Marshal(cred)
	if err != nil {
		return nil, err
	}
	p := &registry.Passkey{CredentialID: cred.ID, PublicKey: cred.PublicKey, SignCount: cred.Authenticator.SignCount, Record: record}
	for _, t := range cred.Transport {
		p.Transports = append(p.Transports, string(t))
	}
	return p, nil
}

// BeginDiscoverableLogin names no account: the authenticator offers the
// passkeys it holds for this site, verified by the user.
func (rp *RelyingParty) BeginDiscoverableLogin() (json.RawMessage, []byte, error) {
	return begun(rp.w.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired)))
}

// BeginLogin asks for one of the account's passkeys, user verification
// preferred (the password was checked already).
func (rp *RelyingParty) BeginLogin(pu registry.PasskeyUser) (json.RawMessage, []byte, error) {
	u, err := newUser(pu)
	if err != nil {
		return nil, nil, err
	}
	return begun(rp.w.BeginLogin(u, webauthn.WithUserVerification(protocol.VerificationPreferred)))
}

// assertion is the browser's answer to a log-in, parsed.
type assertion struct {
	parsed *protocol.ParsedCredentialAssertionData
}

func (a assertion) CredentialID() []byte { return a.parsed.RawID }

// ParseAssertion reads the browser's answer to a log-in.
func (rp *RelyingParty) ParseAssertion(answer []byte) (registry.PasskeyAssertion, error) {
	parsed, err := protocol.ParseCredentialRequestResponseBytes(answer)
	if err != nil {
		return nil, refusal(true, err)
	}
	return assertion{parsed}, nil
}

// FinishDiscoverableLogin checks a log-in begun by BeginDiscoverableLogin
// against the account of the passkey it names.
func (rp *RelyingParty) FinishDiscoverableLogin(pu registry.PasskeyUser, session []byte, a registry.PasskeyAssertion) (registry.PasskeyUse, error) {
	return rp.finishLogin(pu, session, a, func(u *user, sd webauthn.SessionData, parsed *protocol.ParsedCredentialAssertionData) (*webauthn.Credential, error) {
		_, cred, err := rp.w.ValidatePasskeyLogin(func(_, _ []byte) (webauthn.User, error) { return u, nil }, sd, parsed)
		return cred, err
	})
}

// FinishLogin checks a log-in begun by BeginLogin.
func (rp *RelyingParty) FinishLogin(pu registry.PasskeyUser, session []byte, a registry.PasskeyAssertion) (registry.PasskeyUse, error) {
	return rp.finishLogin(pu, session, a, func(u *user, sd webauthn.SessionData, parsed *protocol.ParsedCredentialAssertionData) (*webauthn.Credential, error) {
		return rp.w.ValidateLogin(u, sd, parsed)
	})
}

func (rp *RelyingParty) finishLogin(pu registry.PasskeyUser, session []byte, a registry.PasskeyAssertion,
	validate func(*user, webauthn.SessionData, *protocol.ParsedCredentialAssertionData) (*webauthn.Credential, error)) (registry.PasskeyUse, error) {
	parsed, ok := a.(assertion)
	if !ok {
		return registry.PasskeyUse{}, errors.New("passkeys: an assertion this relying party did not parse")
	}
	sd, err := readSession(session)
	if err != nil {
		return registry.PasskeyUse{}, err
	}
	u, err := newUser(pu)
	if err != nil {
		return registry.PasskeyUse{}, err
	}
	cred, err := validate(u, *sd, parsed.parsed)
	if err != nil {
		return registry.PasskeyUse{}, refusal(false, err)
	}
	return registry.PasskeyUse{CredentialID: cred.ID, SignCount: cred.Authenticator.SignCount,
		CloneWarning: cred.Authenticator.CloneWarning, Challenge: sd.Challenge}, nil
}
