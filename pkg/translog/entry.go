// Package translog holds what the transparency log's server and its clients share: the entry format, the
// tile paths, entry bundles and checkpoints (docs/protocol.md, "Transparency log"). The Merkle tree, proofs
// and signed notes come from golang.org/x/mod/sumdb/tlog and sumdb/note; this package only fixes our formats
// on top of them. It is pure: no I/O, no server code.
package translog

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/pact-registry/pact/pkg/clip"
)

// Header is the first line of every entry of format version 1.
const Header = "pact-log-entry v1"

// MaxEntrySize bounds an entry's marshalled size; it is the largest length an entry bundle's uint16 prefix
// can carry.
const MaxEntrySize = 65535

// TimeLayout is how an entry writes its time: RFC 3339, UTC, whole seconds.
const TimeLayout = "2006-01-02T15:04:05Z"

// The kinds of entry this version knows. Parse keeps other kinds readable as generic key/value entries.
const (
	KindPublish   = "publish"
	KindKeyAdd    = "key-add"
	KindKeyRemove = "key-remove"
	KindYank      = "yank"
	KindUnyank    = "unyank"
	// KindRelease records a release registered for a published version:
	// the artifacts built from it (docs/protocol.md, Releases).
	KindRelease = "release"
	// KindMember: an account gained a role in an organisation, or its
	// role changed; KindMemberRemove: it lost its membership.
	KindMember       = "member"
	KindMemberRemove = "member-remove"
	// KindTrustedPublisherRemove: a trusted publisher of an organisation
	// was removed because the member who made it lost its owner role.
	KindTrustedPublisherRemove = "trusted-publisher-remove"
	// KindTrustedPublishingOnly: a package's owner turned its
	// trusted-publishing-only setting on or off (docs/protocol.md,
	// Trusted publishing only).
	KindTrustedPublishingOnly = "trusted-publishing-only"
	// KindPackState states a package's state after an event of it (a
	// publish, yank, unyank or deprecation): its latest version, its
	// yanked versions and its deprecation, and the index of the package's
	// previous pack-state entry (docs/protocol.md, Package state). It is
	// an entry of its own, not lines added to the event's entry, so the
	// event entries keep their format and clients that predate it read it
	// as an unknown kind.
	KindPackState = "pack-state"
)

// How a publish was authenticated.
const (
	AuthToken = "token"
	AuthSSH   = "ssh"
	// AuthOIDC: a token from trusted publishing; the entry names the CI
	// job (docs/protocol.md, Entries).
	AuthOIDC = "oidc"
)

// A Field is one `key value` line after the kind and time lines.
type Field struct {
	Key, Value string
}

// An Entry is one event in the log: its kind, its time and the kind's fields in their fixed order.
type Entry struct {
	Kind   string
	Time   time.Time
	Fields []Field
}

// Get answers the value of the first field named key, or "" when there is none.
func (e *Entry) Get(key string) string {
	for _, f := range e.Fields {
		if f.Key == key {
			return f.Value
		}
	}
	return ""
}

// Marshal answers the entry's bytes: the header, `kind`, `time`, then the fields, each line ending "\n".
// These bytes are what the log stores and hashes; Marshal does not validate (Parse does).
func (e *Entry) Marshal() []byte {
	var b bytes.Buffer
	b.WriteString(Header)
	b.WriteString("\nkind ")
	b.WriteString(e.Kind)
	b.WriteString("\ntime ")
	b.WriteString(e.Time.UTC().Format(TimeLayout))
	b.WriteByte('\n')
	for _, f := range e.Fields {
		b.WriteString(f.Key)
		b.WriteByte(' ')
		b.WriteString(f.Value)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// RecordHash answers the entry's leaf hash in the Merkle tree (RFC 6962: SHA-256 of 0x00 and the bytes).
func RecordHash(entry []byte) tlog.Hash {
	return tlog.RecordHash(entry)
}

// kindFields lists, for each kind this version knows, its fields in their fixed order. A publish
// authenticated by token stops after `auth`; one by SSH adds `key` and `signed-lines`.
var kindFields = map[string][]string{
	KindPublish:                {"owner", "pack", "version", "sha256", "size", "auth", "key", "signed-lines"},
	KindKeyAdd:                 {"owner", "key", "fingerprint"},
	KindKeyRemove:              {"owner", "key", "fingerprint"},
	KindYank:                   {"owner", "pack", "version", "reason"},
	KindUnyank:                 {"owner", "pack", "version"},
	KindMember:                 {"owner", "member", "role", "by"},
	KindMemberRemove:           {"owner", "member", "by"},
	KindTrustedPublisherRemove: {"owner", "member", "trusted-publisher", "issuer", "packages", "revoked-tokens", "by"},
	KindRelease:                {"owner", "pack", "version", "sha256", "release", "artifacts", "commit"},
	KindTrustedPublishingOnly:  {"owner", "pack", "value", "by"},
	// Every field but owner and pack is left out when it has no value
	// (PackStateEvent); PackState checks the canonical form.
	KindPackState: {"owner", "pack", "prev", "latest", "yanked", "deprecated"},
}

// Parse reads an entry strictly: the version-1 header, `kind` then `time` (RFC 3339 UTC seconds), keys of
// [a-z0-9-]+ without duplicates, values that are non-empty printable UTF-8, every line ending "\n", at most
// MaxEntrySize bytes. A kind this version knows must have exactly its fields, in order, with well-formed
// values; an unknown kind is kept as generic fields. Parse(e.Marshal()) gives e back for every valid e.
func Parse(data []byte) (*Entry, error) {
	if len(data) > MaxEntrySize {
		return nil, fmt.Errorf("log entry: %d bytes, more than %d", len(data), MaxEntrySize)
	}
	if !utf8.Valid(data) {
		return nil, errors.New("log entry: not UTF-8")
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		return nil, errors.New("log entry: does not end with a newline")
	}
	lines := strings.Split(string(data[:len(data)-1]), "\n")
	if lines[0] != Header {
		return nil, fmt.Errorf("log entry: first line %q, want %q", clip.Text(lines[0], 40), Header)
	}
	var kv []Field
	seen := map[string]bool{}
	for i, line := range lines[1:] {
		k, v, ok := strings.Cut(line, " ")
		if !ok || !validKey(k) {
			return nil, fmt.Errorf("log entry: line %d is not `key value`", i+2)
		}
		if !validValue(v) {
			return nil, fmt.Errorf("log entry: %s: empty value or a control character", k)
		}
		if seen[k] {
			return nil, fmt.Errorf("log entry: %s appears twice", k)
		}
		seen[k] = true
		kv = append(kv, Field{k, v})
	}
	if len(kv) < 2 || kv[0].Key != "kind" || kv[1].Key != "time" {
		return nil, errors.New("log entry: the first fields must be kind and time")
	}
	t, err := time.Parse(TimeLayout, kv[1].Value)
	if err != nil || t.Format(TimeLayout) != kv[1].Value {
		return nil, fmt.Errorf("log entry: time %q is not RFC 3339 UTC seconds", clip.Text(kv[1].Value, 40))
	}
	e := &Entry{Kind: kv[0].Value, Time: t, Fields: kv[2:]}
	if err := e.checkKind(); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *Entry) checkKind() error {
	want, known := kindFields[e.Kind]
	if !known {
		return nil
	}
	if e.Kind == KindPublish {
		switch e.Get("auth") {
		case AuthToken:
			want = want[:6]
		case AuthOIDC:
			want = append(want[:6:6], "issuer", "ci")
		}
	}
	if e.Kind == KindRelease && e.Get("commit") == "" {
		want = want[:6] // a release without a source commit
	}
	if e.Kind == KindPackState {
		return e.checkPackState()
	}
	if len(e.Fields) != len(want) {
		return fmt.Errorf("log entry: %s has %d fields, want %d", e.Kind, len(e.Fields), len(want))
	}
	for i, f := range e.Fields {
		if f.Key != want[i] {
			return fmt.Errorf("log entry: %s field %d is %s, want %s", e.Kind, i+1, f.Key, want[i])
		}
	}
	switch e.Kind {
	case KindPublish:
		p, err := e.Publish()
		if err != nil {
			return err
		}
		if !bytes.Equal(NewPublish(p).Marshal(), e.Marshal()) {
			return errors.New("log entry: publish fields are not in canonical form")
		}
	case KindYank:
		if _, err := e.Yank(); err != nil {
			return err
		}
	case KindRelease:
		if _, err := e.Release(); err != nil {
			return err
		}
	case KindTrustedPublishingOnly:
		if _, err := e.TrustedPublishingOnly(); err != nil {
			return err
		}
	}
	return nil
}

func validKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func validValue(v string) bool {
	if v == "" {
		return false
	}
	for _, r := range v {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u2028' || r == '\u2029' {
			return false
		}
	}
	return true
}

// PublishEvent is a published version as the log records it.
type PublishEvent struct {
	Time                 time.Time
	Owner, Pack, Version string
	SHA256               string // 64 lowercase hex digits of the document's bytes
	Size                 int64  // the document's length in bytes
	Auth                 string // AuthToken or AuthSSH
	Key                  string // AuthSSH only: the signer's public key, authorized_keys form, no comment
	SignedLines          []byte // AuthSSH only: the exact message lines that were signed
	Issuer               string // AuthOIDC only: the OpenID Connect issuer of the CI job
	CI                   string // AuthOIDC only: the CI job, a JSON object (issuer, repository, workflow, ref, sha, run_id)
}

// NewPublish makes a publish entry. With Auth == AuthToken, Key and SignedLines are not written.
func NewPublish(p PublishEvent) *Entry {
	e := &Entry{Kind: KindPublish, Time: p.Time.UTC().Truncate(time.Second), Fields: []Field{
		{"owner", p.Owner}, {"pack", p.Pack}, {"version", p.Version}, {"sha256", p.SHA256},
		{"size", strconv.FormatInt(p.Size, 10)}, {"auth", p.Auth},
	}}
	switch p.Auth {
	case AuthToken:
	case AuthOIDC:
		e.Fields = append(e.Fields, Field{"issuer", p.Issuer}, Field{"ci", p.CI})
	default:
		e.Fields = append(e.Fields, Field{"key", p.Key},
			Field{"signed-lines", base64.StdEncoding.EncodeToString(p.SignedLines)})
	}
	return e
}

// Publish reads a publish entry's fields.
func (e *Entry) Publish() (PublishEvent, error) {
	if e.Kind != KindPublish {
		return PublishEvent{}, fmt.Errorf("log entry: kind %s, not %s", clip.Text(e.Kind, 40), KindPublish)
	}
	p := PublishEvent{Time: e.Time, Owner: e.Get("owner"), Pack: e.Get("pack"), Version: e.Get("version"),
		SHA256: e.Get("sha256"), Auth: e.Get("auth"), Key: e.Get("key")}
	if b, err := hex.DecodeString(p.SHA256); err != nil || len(b) != 32 || strings.ToLower(p.SHA256) != p.SHA256 {
		return PublishEvent{}, errors.New("log entry: sha256 is not 64 lowercase hex digits")
	}
	size, err := strconv.ParseInt(e.Get("size"), 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != e.Get("size") {
		return PublishEvent{}, errors.New("log entry: size is not a non-negative decimal")
	}
	p.Size = size
	switch p.Auth {
	case AuthToken:
	case AuthOIDC:
		p.Issuer, p.CI = e.Get("issuer"), e.Get("ci")
		var ci map[string]any
		if err := json.Unmarshal([]byte(p.CI), &ci); err != nil {
			return PublishEvent{}, errors.New("log entry: ci is not a JSON object")
		}
	case AuthSSH:
		lines, err := base64.StdEncoding.Strict().DecodeString(e.Get("signed-lines"))
		if err != nil || len(lines) == 0 {
			return PublishEvent{}, errors.New("log entry: signed-lines is not standard padded base64")
		}
		if p.Key == "" {
			return PublishEvent{}, errors.New("log entry: an ssh publish without a key")
		}
		p.SignedLines = lines
	default:
		return PublishEvent{}, fmt.Errorf("log entry: auth %q is neither token, ssh nor oidc", clip.Text(p.Auth, 40))
	}
	return p, nil
}

// KeyEvent is an SSH key added to or removed from an account.
type KeyEvent struct {
	Time        time.Time
	Owner       string
	Key         string // authorized_keys form, no comment
	Fingerprint string // SHA256:...
}

// NewKeyAdd makes a key-add entry.
func NewKeyAdd(k KeyEvent) *Entry { return newKeyEntry(KindKeyAdd, k) }

// NewKeyRemove makes a key-remove entry.
func NewKeyRemove(k KeyEvent) *Entry { return newKeyEntry(KindKeyRemove, k) }

func newKeyEntry(kind string, k KeyEvent) *Entry {
	return &Entry{Kind: kind, Time: k.Time.UTC().Truncate(time.Second), Fields: []Field{
		{"owner", k.Owner}, {"key", k.Key}, {"fingerprint", k.Fingerprint},
	}}
}

// KeyEvent reads a key-add or key-remove entry's fields.
func (e *Entry) KeyEvent() (KeyEvent, error) {
	if e.Kind != KindKeyAdd && e.Kind != KindKeyRemove {
		return KeyEvent{}, fmt.Errorf("log entry: kind %s is not a key event", clip.Text(e.Kind, 40))
	}
	return KeyEvent{Time: e.Time, Owner: e.Get("owner"), Key: e.Get("key"), Fingerprint: e.Get("fingerprint")}, nil
}

// YankEvent is a version yanked (with a reason) or unyanked.
type YankEvent struct {
	Time                 time.Time
	Owner, Pack, Version string
	Reason               string // yank only; written as a JSON string
}

// NewYank makes a yank entry.
func NewYank(y YankEvent) *Entry {
	return &Entry{Kind: KindYank, Time: y.Time.UTC().Truncate(time.Second), Fields: []Field{
		{"owner", y.Owner}, {"pack", y.Pack}, {"version", y.Version}, {"reason", JSONString(y.Reason)},
	}}
}

// NewUnyank makes an unyank entry.
func NewUnyank(y YankEvent) *Entry {
	return &Entry{Kind: KindUnyank, Time: y.Time.UTC().Truncate(time.Second), Fields: []Field{
		{"owner", y.Owner}, {"pack", y.Pack}, {"version", y.Version},
	}}
}

// Yank reads a yank or unyank entry's fields.
func (e *Entry) Yank() (YankEvent, error) {
	if e.Kind != KindYank && e.Kind != KindUnyank {
		return YankEvent{}, fmt.Errorf("log entry: kind %s is not a yank event", clip.Text(e.Kind, 40))
	}
	y := YankEvent{Time: e.Time, Owner: e.Get("owner"), Pack: e.Get("pack"), Version: e.Get("version")}
	if e.Kind == KindYank {
		r, err := ParseJSONString(e.Get("reason"))
		if err != nil {
			return YankEvent{}, fmt.Errorf("log entry: reason: %w", err)
		}
		y.Reason = r
	}
	return y, nil
}

// JSONString writes s as a JSON string on one line, the form of free-text values (HTML characters are not
// escaped; invalid UTF-8 becomes U+FFFD).
func JSONString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// ParseJSONString reads a free-text value, which must be in the form JSONString writes.
func ParseJSONString(v string) (string, error) {
	var s string
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		return "", errors.New("not a JSON string")
	}
	if JSONString(s) != v {
		return "", errors.New("JSON string not in canonical form")
	}
	return s, nil
}

// ReleaseEvent is a release registered for a published version. The
// release itself (artifacts, URLs) can be larger than an entry; the entry
// holds its digest, which the registry's release record answers to.
type ReleaseEvent struct {
	Time                 time.Time
	Owner, Pack, Version string
	SHA256               string // 64 lowercase hex digits: the version's document
	Release              string // 64 lowercase hex digits: the release record's digest (docs/protocol.md, Releases)
	Artifacts            int    // how many artifacts the release lists
	Commit               string // the source git commit, lowercase hex; "" when none was given
}

// NewRelease makes a release entry; `commit` is written only when known.
func NewRelease(r ReleaseEvent) *Entry {
	e := &Entry{Kind: KindRelease, Time: r.Time.UTC().Truncate(time.Second), Fields: []Field{
		{"owner", r.Owner}, {"pack", r.Pack}, {"version", r.Version}, {"sha256", r.SHA256},
		{"release", r.Release}, {"artifacts", strconv.Itoa(r.Artifacts)},
	}}
	if r.Commit != "" {
		e.Fields = append(e.Fields, Field{"commit", r.Commit})
	}
	return e
}

// MemberEvent is a change of who may act for an organisation: Owner is the
// organisation, Member the account, Role its new role ("owner" or
// "maintainer"; "" for a removal), By the owner who made the change.
type MemberEvent struct {
	Time                time.Time
	Owner, Member, Role string
	By                  string
}

// NewMember makes a member entry (Role set) or a member-remove entry
// (Role "").
func NewMember(m MemberEvent) *Entry {
	e := &Entry{Kind: KindMember, Time: m.Time.UTC().Truncate(time.Second), Fields: []Field{
		{"owner", m.Owner}, {"member", m.Member}, {"role", m.Role}, {"by", m.By}}}
	if m.Role == "" {
		e.Kind, e.Fields = KindMemberRemove, []Field{{"owner", m.Owner}, {"member", m.Member}, {"by", m.By}}
	}
	return e
}

// TrustedPublisherRemoveEvent is a trusted publisher of the organisation
// Owner removed with the owner role of Member, who made it: By removed or
// demoted Member. ID, Issuer and Packages (globs separated by single
// spaces) are the publisher's; RevokedTokens counts the tokens exchanged
// through it that were revoked with it.
type TrustedPublisherRemoveEvent struct {
	Time          time.Time
	Owner, Member string
	ID            int64
	Issuer        string
	Packages      string
	RevokedTokens int
	By            string
}

// NewTrustedPublisherRemove makes a trusted-publisher-remove entry.
func NewTrustedPublisherRemove(r TrustedPublisherRemoveEvent) *Entry {
	return &Entry{Kind: KindTrustedPublisherRemove, Time: r.Time.UTC().Truncate(time.Second), Fields: []Field{
		{"owner", r.Owner}, {"member", r.Member}, {"trusted-publisher", strconv.FormatInt(r.ID, 10)}, {"issuer", r.Issuer},
		{"packages", r.Packages}, {"revoked-tokens", strconv.Itoa(r.RevokedTokens)}, {"by", r.By}}}
}

// Release reads a release entry's fields.
func (e *Entry) Release() (ReleaseEvent, error) {
	if e.Kind != KindRelease {
		return ReleaseEvent{}, fmt.Errorf("log entry: kind %s, not %s", clip.Text(e.Kind, 40), KindRelease)
	}
	r := ReleaseEvent{Time: e.Time, Owner: e.Get("owner"), Pack: e.Get("pack"), Version: e.Get("version"),
		SHA256: e.Get("sha256"), Release: e.Get("release"), Commit: e.Get("commit")}
	for name, v := range map[string]string{"sha256": r.SHA256, "release": r.Release} {
		if !lowerHex(v, 64) {
			return ReleaseEvent{}, fmt.Errorf("log entry: %s is not 64 lowercase hex digits", name)
		}
	}
	n, err := strconv.Atoi(e.Get("artifacts"))
	if err != nil || n < 0 || strconv.Itoa(n) != e.Get("artifacts") {
		return ReleaseEvent{}, errors.New("log entry: artifacts is not a non-negative decimal")
	}
	r.Artifacts = n
	if r.Commit != "" && (len(r.Commit) < 7 || !lowerHex(r.Commit, len(r.Commit)) || len(r.Commit) > 64) {
		return ReleaseEvent{}, errors.New("log entry: commit is not 7 to 64 lowercase hex digits")
	}
	return r, nil
}

func lowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true

}

// MemberEvent reads a member or member-remove entry's fields.
func (e *Entry) MemberEvent() (MemberEvent, error) {
	if e.Kind != KindMember && e.Kind != KindMemberRemove {
		return MemberEvent{}, fmt.Errorf("log entry: kind %s is not a member event", clip.Text(e.Kind, 40))
	}
	return MemberEvent{Time: e.Time, Owner: e.Get("owner"), Member: e.Get("member"), Role: e.Get("role"), By: e.Get("by")}, nil
}

// TrustedPublishingOnlyEvent is the setting of the package Owner/Pack that
// lets only tokens exchanged through a trusted publisher publish it, turned
// on (Only) or off by By, the account that changed it.
type TrustedPublishingOnlyEvent struct {
	Time        time.Time
	Owner, Pack string
	Only        bool
	By          string
}

// NewTrustedPublishingOnly makes a trusted-publishing-only entry; `value`
// is true or false.
func NewTrustedPublishingOnly(ev TrustedPublishingOnlyEvent) *Entry {
	return &Entry{Kind: KindTrustedPublishingOnly, Time: ev.Time.UTC().Truncate(time.Second), Fields: []Field{
		{"owner", ev.Owner}, {"pack", ev.Pack}, {"value", strconv.FormatBool(ev.Only)}, {"by", ev.By}}}
}

// TrustedPublishingOnly reads a trusted-publishing-only entry's fields.
func (e *Entry) TrustedPublishingOnly() (TrustedPublishingOnlyEvent, error) {
	if e.Kind != KindTrustedPublishingOnly {
		return TrustedPublishingOnlyEvent{}, fmt.Errorf("log entry: kind %s, not %s", clip.Text(e.Kind, 40), KindTrustedPublishingOnly)
	}
	ev := TrustedPublishingOnlyEvent{Time: e.Time, Owner: e.Get("owner"), Pack: e.Get("pack"), By: e.Get("by")}
	switch e.Get("value") {
	case "true":
		ev.Only = true
	case "false":
	default:
		return TrustedPublishingOnlyEvent{}, errors.New("log entry: value is neither true nor false")
	}
	return ev, nil
}

// PackStateEvent is a package's state after an event of it, as the log
// states it: Latest is its latest version ("" when every version is
// yanked), Yanked its yanked versions in byte order, Deprecated its
// deprecation message ("" when not deprecated) and Prev the index of the
// package's previous pack-state entry (-1 for its first).
type PackStateEvent struct {
	Time        time.Time
	Owner, Pack string
	Prev        int64
	Latest      string
	Yanked      []string
	Deprecated  string
}

// NewPackState makes a pack-state entry: `prev`, `latest`, `yanked` (the
// versions separated by single spaces) and `deprecated` (a JSON string)
// only when they have a value. Yanked is sorted here.
func NewPackState(ev PackStateEvent) *Entry {
	e := &Entry{Kind: KindPackState, Time: ev.Time.UTC().Truncate(time.Second), Fields: []Field{{"owner", ev.Owner}, {"pack", ev.Pack}}}
	if ev.Prev >= 0 {
		e.Fields = append(e.Fields, Field{"prev", strconv.FormatInt(ev.Prev, 10)})
	}
	if ev.Latest != "" {
		e.Fields = append(e.Fields, Field{"latest", ev.Latest})
	}
	if len(ev.Yanked) > 0 {
		yanked := slices.Clone(ev.Yanked)
		slices.Sort(yanked)
		e.Fields = append(e.Fields, Field{"yanked", strings.Join(slices.Compact(yanked), " ")})
	}
	if ev.Deprecated != "" {
		e.Fields = append(e.Fields, Field{"deprecated", JSONString(ev.Deprecated)})
	}
	return e
}

// PackState reads a pack-state entry's fields.
func (e *Entry) PackState() (PackStateEvent, error) {
	if e.Kind != KindPackState {
		return PackStateEvent{}, fmt.Errorf("log entry: kind %s, not %s", clip.Text(e.Kind, 40), KindPackState)
	}
	ev := PackStateEvent{Time: e.Time, Owner: e.Get("owner"), Pack: e.Get("pack"), Prev: -1, Latest: e.Get("latest")}
	if ev.Owner == "" || ev.Pack == "" {
		return PackStateEvent{}, errors.New("log entry: a pack-state without its owner or pack")
	}
	if prev := e.Get("prev"); prev != "" {
		n, err := strconv.ParseInt(prev, 10, 64)
		if err != nil || n < 0 || strconv.FormatInt(n, 10) != prev {
			return PackStateEvent{}, errors.New("log entry: prev is not a non-negative decimal")
		}
		ev.Prev = n
	}
	if yanked := e.Get("yanked"); yanked != "" {
		ev.Yanked = strings.Split(yanked, " ")
		if slices.Contains(ev.Yanked, "") {
			return PackStateEvent{}, errors.New("log entry: yanked is not versions separated by single spaces")
		}
	}
	if d := e.Get("deprecated"); d != "" {
		msg, err := ParseJSONString(d)
		if err != nil || msg == "" {
			return PackStateEvent{}, errors.New("log entry: deprecated is not a non-empty JSON string in canonical form")
		}
		ev.Deprecated = msg
	}
	return ev, nil
}

// IsYanked reports whether the state lists version as yanked.
func (ev *PackStateEvent) IsYanked(version string) bool {
	_, found := slices.BinarySearch(ev.Yanked, version)
	return found
}

// checkPackState checks a pack-state entry: its fields in their order,
// each at most once, and in the form NewPackState writes (yanked sorted,
// without duplicates or empty names).
func (e *Entry) checkPackState() error {
	ev, err := e.PackState()
	if err != nil {
		return err
	}
	if !bytes.Equal(NewPackState(ev).Marshal(), e.Marshal()) {
		return errors.New("log entry: pack-state fields are not in canonical form (owner, pack, then prev, latest, yanked and deprecated when set; yanked sorted, once each)")
	}
	return nil
}
