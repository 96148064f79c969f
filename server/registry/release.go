package registry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pact-registry/pact/pkg/clip"
	"github.com/pact-registry/pact/pkg/translog"
)

// Releases (docs/protocol.md, Releases): a release links one published
// version of a pack to the artifacts built from it, with their digests,
// the index that lists them and the source commit. A release is
// immutable: registering the identical release again changes nothing, a
// different one for the same version is refused. Each registration is a
// transparency log entry appended in the transaction that stores it.

// Release is a registered release of one version.
type Release struct {
	ID        int64
	PackageID int64
	VersionID int64
	Owner     string // owner slug
	Pack      string // pack slug
	Version   string
	// ContractSHA256 is the version's document digest, hex.
	ContractSHA256   string
	ContractURL      string // "" when none was given
	ArtifactIndexURL string
	// Artifacts are JSON objects in canonical form (keys sorted), with
	// every field the client sent.
	Artifacts []json.RawMessage
	// ArtifactCount is how many artifacts the release has: a list of
	// releases (ListReleases) has it and no Artifacts.
	ArtifactCount   int
	SourceGitCommit string // lowercase hex; "" when none was given
	// SHA256 is the digest of the release record (Canonical), which the
	// log entry holds and immutability compares.
	SHA256    string
	CreatedAt time.Time
	LogIndex  *int64
}

// ContractID is "owner/pack".
func (r *Release) ContractID() string { return r.Owner + "/" + r.Pack }

// ContractDigest is "sha256:<hex>" of the version's document.
func (r *Release) ContractDigest() string { return "sha256:" + r.ContractSHA256 }

// Canonical is the release record whose SHA-256 is the release's digest:
// a JSON object with sorted keys, optional fields left out when empty
// (docs/protocol.md, Releases).
func (r *Release) Canonical() []byte {
	m := map[string]any{
		"contract_id":        r.ContractID(),
		"version":            r.Version,
		"contract_digest":    r.ContractDigest(),
		"artifact_index_url": r.ArtifactIndexURL,
		"artifacts":          r.Artifacts,
	}
	if r.Artifacts == nil {
		m["artifacts"] = []json.RawMessage{}
	}
	if r.ContractURL != "" {
		m["contract_url"] = r.ContractURL
	}
	if r.SourceGitCommit != "" {
		m["source_git_commit"] = r.SourceGitCommit
	}
	out, _ := json.Marshal(m)
	return out
}

// ReleaseStore keeps releases.
type ReleaseStore interface {
	// ReleaseOf answers the release of owner/pack's version; NotFound when
	// there is none.
	ReleaseOf(ctx context.Context, owner, pack, version string) (*Release, error)
	// ListReleases lists a package's releases newest first (by ID), those
	// with ID < before when before > 0, at most limit of them, each with
	// its ArtifactCount and without its Artifacts (a page of them is
	// bounded by the fields a release has, not by its artifacts).
	ListReleases(ctx context.Context, packageID int64, before int64, limit int) ([]Release, error)
	// LoggedReleases answers up to limit releases with ID > after, by ID
	// (CheckLog compares each with its log entry).
	LoggedReleases(ctx context.Context, after int64, limit int) ([]Release, error)
}

// Bounds of a release (docs/protocol.md, Releases).
const (
	MaxReleaseBodyBytes    = 256 << 10
	MaxReleaseArtifacts    = 1000
	MaxReleaseURLLength    = 2048
	MaxArtifactNameLength  = 256
	MaxMediaTypeLength     = 255
	MaxArtifactFields      = 32   // keys of one artifact, known ones included
	MaxArtifactKeyLength   = 64   // the name of a field
	MaxArtifactValueBytes  = 4096 // a field the registry does not know, as JSON
	MaxContractIDLength    = 130  // owner/pack
	MaxReleaseVersionBytes = 128
)

// ReleaseSpec is a release as a client registers it. Pointers are nil
// for fields not sent.
type ReleaseSpec struct {
	ContractID       *string
	Version          *string
	ArtifactIndexURL *string
	Artifacts        []json.RawMessage // nil when not sent (or null)
	ContractDigest   *string
	ContractURL      *string
	SourceGitCommit  *string
}

// ReleaseConflict refuses a release different from the one registered.
func ReleaseConflict(owner, pack, version string) *Error {
	return Errorf(Conflict, "%s/%s %s has a release already, different from this one; a release is immutable", owner, pack, version)
}

// RegisterRelease registers a release of a version of one of caller's
// packs. token, when not nil, must hold the publish scope for the pack.
// created is false when the identical release existed.
func (s *Service) RegisterRelease(ctx context.Context, caller *Account, token *Token, spec ReleaseSpec) (*Release, bool, error) {
	r, digest, err := prepareRelease(caller, spec)
	if err != nil {
		return nil, false, err
	}
	if err := Permit(token, OpRelease, caller.Username, r.Owner, r.Pack); err != nil {
		return nil, false, err
	}
	p, err := s.ownedPackage(ctx, caller, r.Owner, r.Pack, ActPublish, "register releases of")
	if err != nil {
		return nil, false, err
	}
	r.Owner, r.Pack, r.PackageID = p.OwnerSlug, p.PackSlug, p.ID
	versions, err := s.store.ListVersions(ctx, p.ID)
	if err != nil {
		return nil, false, err
	}
	var v *Version
	for i := range versions {
		if versions[i].Version == r.Version {
			v = &versions[i]
		}
	}
	if v == nil {
		return nil, false, Errorf(NotFound, "%s/%s has no version %s: publish it first", r.Owner, r.Pack, r.Version)
	}
	if digest != "" && digest != v.SHA256 {
		return nil, false, Errorf(Conflict, "contract_digest is sha256:%s, but %s/%s %s has sha256:%s", digest, r.Owner, r.Pack, r.Version, v.SHA256)
	}
	r.VersionID, r.ContractSHA256 = v.ID, v.SHA256
	r.CreatedAt = s.now()
	sum := sha256.Sum256(r.Canonical())
	r.SHA256 = hex.EncodeToString(sum[:])
	return CreateRelease(ctx, s.store, r)
}

// CreateRelease stores r (setting ID; CreatedAt as given) for the version
// r.VersionID of r.PackageID with its log entry (ReleaseLogEntry), in one
// transaction of st, and answers it as stored, with its LogIndex. A
// release is immutable: when the version has one already nothing changes,
// and the stored one is answered (created false) when it has r's SHA256,
// ReleaseConflict otherwise. NotFound when the version does not exist.
func CreateRelease(ctx context.Context, st Transactor, r *Release) (stored *Release, created bool, err error) {
	entry := ReleaseLogEntry(r)
	err = st.Tx(ctx, func(tx Tx) (err error) {
		stored, created, err = createReleaseTx(tx, r, entry)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return stored, created, nil
}

// createReleaseTx is one run of CreateRelease's transaction.
func createReleaseTx(tx Tx, r *Release, entry *translog.Entry) (*Release, bool, error) {
	there, err := tx.HasVersion(r.PackageID, r.VersionID)
	if err != nil {
		return nil, false, err
	}
	if !there {
		return nil, false, Errorf(NotFound, "no version %s of %s/%s", r.Version, r.Owner, r.Pack)
	}
	// Inserted without looking first: a concurrent registration of the
	// same version waits for the other, then finds what it stored.
	inserted, err := tx.InsertRelease(r)
	if err != nil {
		return nil, false, err
	}
	if !inserted {
		existing, err := tx.ReleaseOfVersion(r.VersionID)
		if err != nil {
			return nil, false, err
		}
		if existing.SHA256 != r.SHA256 {
			return nil, false, ReleaseConflict(existing.Owner, existing.Pack, existing.Version)
		}
		return existing, false, nil
	}
	index, err := appendEntry(tx, entry, 0)
	if err != nil {
		return nil, false, err
	}
	if err := tx.SetReleaseLogIndex(r.ID, index); err != nil {
		return nil, false, err
	}
	stored, err := tx.ReleaseOfVersion(r.VersionID)
	if err != nil {
		return nil, false, err
	}
	return stored, true, nil
}

// Release answers the release of owner/pack's version.
func (s *Service) Release(ctx context.Context, owner, pack, version string) (*Release, error) {
	owner, pack = strings.ToLower(owner), strings.ToLower(pack)
	if len(version) > MaxReleaseVersionBytes {
		return nil, Errorf(NotFound, "no such version")
	}
	if IsLatestAlias(version) {
		p, err := s.store.PackageBySlug(ctx, owner, pack)
		if err != nil {
			return nil, err
		}
		if p.Version == "" {
			return nil, Errorf(NotFound, "%s/%s has no latest version: every version is yanked", p.OwnerSlug, p.PackSlug)
		}
		version = p.Version
	}
	return s.store.ReleaseOf(ctx, owner, pack, version)
}

// ListReleases answers a page of owner/pack's releases, newest first,
// each with its ArtifactCount but not its Artifacts (Release has them),
// and the cursor of the next page ("" on the last).
func (s *Service) ListReleases(ctx context.Context, owner, pack string, limit int, cursor string) ([]Release, string, error) {
	if limit == 0 {
		limit = DefaultListLimit
	}
	if limit < 1 || limit > MaxListLimit {
		return nil, "", Errorf(Invalid, "limit must be between 1 and %d", MaxListLimit)
	}
	before, err := decodeCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	p, err := s.store.PackageBySlug(ctx, strings.ToLower(owner), strings.ToLower(pack))
	if err != nil {
		return nil, "", err
	}
	list, err := s.store.ListReleases(ctx, p.ID, before, limit+1)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(list) > limit {
		list = list[:limit]
		next = encodeCursor(list[limit-1].ID)
	}
	return list, next, nil
}

// ReleaseCursor is the cursor of the page of releases that follows r, for
// a page that ends at r before its limit (the server bounds a page's
// bytes too).
func ReleaseCursor(r *Release) string { return encodeCursor(r.ID) }

// ReleaseLogEntry is the log entry of a registered release.
func ReleaseLogEntry(r *Release) *translog.Entry {
	return translog.NewRelease(translog.ReleaseEvent{Time: r.CreatedAt, Owner: r.Owner, Pack: r.Pack, Version: r.Version,
		SHA256: r.ContractSHA256, Release: r.SHA256, Artifacts: len(r.Artifacts), Commit: r.SourceGitCommit})
}

// prepareRelease checks a spec and answers the release it describes (not
// yet tied to a version) and the contract digest asked for, lowercase
// hex, "" when none.
func prepareRelease(caller *Account, spec ReleaseSpec) (*Release, string, error) {
	r := &Release{}
	if spec.ContractID == nil || *spec.ContractID == "" {
		return nil, "", Errorf(Invalid, "contract_id is required: owner/pack, or the pack alone for one of yours")
	}
	id := *spec.ContractID
	if len(id) > MaxContractIDLength {
		return nil, "", Errorf(Invalid, "contract_id: longer than %d bytes", MaxContractIDLength)
	}
	owner, pack, ok := strings.Cut(id, "/")
	if !ok {
		owner, pack = caller.Username, id
	}
	if !slugLike(owner) || !slugLike(pack) {
		return nil, "", Errorf(Invalid, "contract_id: %q is not owner/pack", clip.Text(id, 40))
	}
	r.Owner, r.Pack = strings.ToLower(owner), strings.ToLower(pack)

	if spec.Version == nil || *spec.Version == "" {
		return nil, "", Errorf(Invalid, "version is required: a published version of the pack")
	}
	r.Version = *spec.Version
	if len(r.Version) > MaxReleaseVersionBytes || checkLabel("version", r.Version, MaxReleaseVersionBytes, false) != nil {
		return nil, "", Errorf(Invalid, "version: not a version (at most %d printable characters)", MaxReleaseVersionBytes)
	}
	if IsLatestAlias(r.Version) {
		return nil, "", Errorf(Invalid, "version: name the version exactly; @%s changes as versions are published", LatestAlias)
	}

	if spec.ArtifactIndexURL == nil {
		return nil, "", Errorf(Invalid, "artifact_index_url is required: the http(s) URL of the index that lists the artifacts")
	}
	if err := checkReleaseURL("artifact_index_url", *spec.ArtifactIndexURL); err != nil {
		return nil, "", err
	}
	r.ArtifactIndexURL = *spec.ArtifactIndexURL
	if spec.ContractURL != nil && *spec.ContractURL != "" {
		if err := checkReleaseURL("contract_url", *spec.ContractURL); err != nil {
			return nil, "", err
		}
		r.ContractURL = *spec.ContractURL
	}
	if spec.SourceGitCommit != nil && *spec.SourceGitCommit != "" {
		c := *spec.SourceGitCommit
		if len(c) < 7 || len(c) > 64 || !isHex(c) {
			return nil, "", Errorf(Invalid, "source_git_commit: not 7 to 64 hex digits")
		}
		r.SourceGitCommit = strings.ToLower(c)
	}
	digest := ""
	if spec.ContractDigest != nil && *spec.ContractDigest != "" {
		d := strings.TrimPrefix(*spec.ContractDigest, "sha256:")
		if len(d) != 64 || !isHex(d) {
			return nil, "", Errorf(Invalid, "contract_digest: not sha256:<64 hex digits> or 64 hex digits")
		}
		digest = strings.ToLower(d)
	}

	if spec.Artifacts == nil {
		return nil, "", Errorf(Invalid, "artifacts is required: a list of objects, each with a name or a url ([] for none)")
	}
	if len(spec.Artifacts) > MaxReleaseArtifacts {
		return nil, "", Errorf(Invalid, "artifacts: %d of them, more than %d", len(spec.Artifacts), MaxReleaseArtifacts)
	}
	r.Artifacts = make([]json.RawMessage, len(spec.Artifacts))
	for i, raw := range spec.Artifacts {
		canon, err := checkArtifact(fmt.Sprintf("artifacts[%d]", i), raw)
		if err != nil {
			return nil, "", err
		}
		r.Artifacts[i] = canon
	}
	return r, digest, nil
}

// checkArtifact checks one artifact and answers it in canonical form.
func checkArtifact(at string, raw json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var fields map[string]any
	if err := dec.Decode(&fields); err != nil || fields == nil {
		return nil, Errorf(Invalid, "%s: not a JSON object", at)
	}
	if len(fields) > MaxArtifactFields {
		return nil, Errorf(Invalid, "%s: %d fields, more than %d", at, len(fields), MaxArtifactFields)
	}
	str := func(key string) (string, bool, error) {
		v, ok := fields[key]
		if !ok {
			return "", false, nil
		}
		s, isString := v.(string)
		if !isString {
			return "", true, Errorf(Invalid, "%s.%s: not a string", at, key)
		}
		return s, true, nil
	}
	name, hasName, err := str("name")
	if err != nil {
		return nil, err
	}
	if hasName {
		if name == "" || checkLabel("name", name, MaxArtifactNameLength, false) != nil {
			return nil, Errorf(Invalid, "%s.name: empty, longer than %d characters or not one printable line", at, MaxArtifactNameLength)
		}
	}
	u, hasURL, err := str("url")
	if err != nil {
		return nil, err
	}
	if hasURL {
		if err := checkReleaseURL(at+".url", u); err != nil {
			return nil, err
		}
	}
	if !hasName && !hasURL {
		return nil, Errorf(Invalid, "%s: has neither a name nor a url", at)
	}
	sum, hasSum, err := str("sha256")
	if err != nil {
		return nil, err
	}
	if hasSum && (len(sum) != 64 || !isHex(sum)) {
		return nil, Errorf(Invalid, "%s.sha256: not 64 hex digits", at)
	}
	digest, hasDigest, err := str("digest")
	if err != nil {
		return nil, err
	}
	if hasDigest {
		alg, encoded, _ := strings.Cut(digest, ":")
		want := map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}[alg]
		if want == 0 || len(encoded) != want || !isHex(encoded) {
			return nil, Errorf(Invalid, "%s.digest: not sha256:, sha384: or sha512: followed by that many hex digits", at)
		}
		if hasSum && alg == "sha256" && !strings.EqualFold(encoded, sum) {
			return nil, Errorf(Invalid, "%s.digest: differs from %s.sha256", at, at)
		}
	}
	if v, ok := fields["size"]; ok {
		n, isNumber := v.(json.Number)
		size, err := strconv.ParseInt(string(n), 10, 64)
		if !isNumber || err != nil || size < 0 || size > 1<<53 {
			return nil, Errorf(Invalid, "%s.size: not a whole number of bytes", at)
		}
	}
	mt, hasMT, err := str("media_type")
	if err != nil {
		return nil, err
	}
	if hasMT && !validMediaType(mt) {
		return nil, Errorf(Invalid, "%s.media_type: not a media type such as application/octet-stream", at)
	}
	for key, v := range fields {
		if len(key) > MaxArtifactKeyLength || key == "" || checkLabel("field", key, MaxArtifactKeyLength, false) != nil {
			return nil, Errorf(Invalid, "%s: a field name is empty, longer than %d bytes or not printable", at, MaxArtifactKeyLength)
		}
		switch key {
		case "name", "url", "sha256", "digest", "size", "media_type":
			continue
		}
		text, err := json.Marshal(v)
		if err != nil {
			return nil, Errorf(Invalid, "%s.%s: not JSON", at, clip.Text(key, 40))
		}
		if len(text) > MaxArtifactValueBytes {
			return nil, Errorf(Invalid, "%s.%s: longer than %d bytes", at, clip.Text(key, 40), MaxArtifactValueBytes)
		}
	}
	canon, err := json.Marshal(fields)
	if err != nil {
		return nil, Errorf(Invalid, "%s: not JSON", at)
	}
	return canon, nil
}

// checkReleaseURL accepts an absolute http(s) URL with a host, of at most
// MaxReleaseURLLength bytes, with no user:password (it is shown to all).
func checkReleaseURL(field, u string) error {
	if len(u) > MaxReleaseURLLength {
		return Errorf(Invalid, "%s: longer than %d bytes", field, MaxReleaseURLLength)
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.Opaque != "" {
		return Errorf(Invalid, "%s: not an http(s) URL", field)
	}
	if p.User != nil {
		return Errorf(Invalid, "%s: must not carry a user name or password", field)
	}
	if checkLabel(field, u, MaxReleaseURLLength, false) != nil || strings.ContainsAny(u, " \t") {
		return Errorf(Invalid, "%s: holds spaces or control characters", field)
	}
	return nil
}

func validMediaType(s string) bool {
	if len(s) > MaxMediaTypeLength {
		return false
	}
	mt, _, err := mime.ParseMediaType(s)
	if err != nil {
		return false
	}
	typ, sub, ok := strings.Cut(mt, "/")
	return ok && typ != "" && sub != ""
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return s != ""
}

// slugLike reports whether s may be an owner or pack slug: 1 to 64 of
// letters, digits, '-', '_' and '.'.
func slugLike(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
