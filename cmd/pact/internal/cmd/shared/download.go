package shared

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
	"github.com/pact-registry/pact/pkg/translog"
)

// PackageAt reads owner/pack and names the version asked for: version
// itself, or the latest for "" and "latest" (shared by get and verify).
func PackageAt(ctx context.Context, c *client.Client, owner, pack, version string) (*client.PackageDetail, string, error) {
	detail, err := c.GetPackage(ctx, owner, pack)
	if err != nil {
		return nil, "", err
	}
	if version == "" || strings.EqualFold(version, "latest") {
		version = detail.Package.Version
	}
	return detail, version, nil
}

// VerifyDownload checks content, the registry's version of owner/pack, against
// its transparency log, and the package's state the registry names: asked
// for the latest (asked "" or "latest"), the version must be the one the
// log's newest state of the package names (docs/protocol.md, Package
// state).
func VerifyDownload(ctx context.Context, f *cmdutil.Factory, c *client.Client, flags cmdutil.VerifyFlags, owner, pack string, detail *client.PackageDetail, asked, version string, content []byte) (*VerifiedDownload, *client.LogVerifier, error) {
	proof, v, err := verifyVersion(ctx, f, c, flags, owner, pack, detail, version, content)
	if err != nil {
		return nil, nil, err
	}
	logged := int64(-1)
	for _, ver := range detail.Versions {
		if ver.LogIndex != nil && *ver.LogIndex > logged {
			logged = *ver.LogIndex
		}
	}
	state, err := v.VerifyPackState(ctx, proof.Checkpoint, detail.Package.OwnerSlug, detail.Package.PackSlug, detail.LogHead, proof.Index, logged)
	if err != nil {
		return nil, nil, f.ExplainKeyMismatch(ctx, c, v, err)
	}
	if IsLatest(asked) && state != nil && state.State.Latest != version {
		return nil, nil, &client.VerificationError{Check: "state", Msg: fmt.Sprintf(
			"the registry serves %s as the latest version of %s/%s, but the log's newest state of the package (entry %d) names %s%s",
			version, owner, pack, state.Index, text.OrNone(state.State.Latest), yankedNote(state, version))}
	}
	return &VerifiedDownload{VersionProof: proof, State: state}, v, nil
}

// verifyVersion checks content, the registry's version of owner/pack,
// against its entry in the transparency log.
func verifyVersion(ctx context.Context, f *cmdutil.Factory, c *client.Client, flags cmdutil.VerifyFlags, owner, pack string, detail *client.PackageDetail, version string, content []byte) (*client.VersionProof, *client.LogVerifier, error) {
	if !strings.EqualFold(detail.Package.OwnerSlug, owner) || !strings.EqualFold(detail.Package.PackSlug, pack) {
		return nil, nil, &client.VerificationError{Check: "entry", Msg: fmt.Sprintf("the registry answered for %s when asked for %s/%s", detail.Package.FullName(), owner, pack)}
	}
	v, err := f.LogVerifier(ctx, c, flags)
	if err != nil {
		return nil, nil, err
	}
	var index *int64
	if ver := detail.FindVersion(version); ver != nil {
		index = ver.LogIndex
	}
	proof, err := v.VerifyVersion(ctx, detail.Package.OwnerSlug, detail.Package.PackSlug, version, index, content)
	if err != nil {
		return nil, nil, f.ExplainKeyMismatch(ctx, c, v, err)
	}
	return proof, v, nil
}

// IsLatest reports whether a version asked for is the latest.
func IsLatest(asked string) bool { return asked == "" || strings.EqualFold(asked, "latest") }

// WarnLoggedState tells the user what the log's state of the package says
// that the registry did not: the version is yanked, the package
// deprecated. On a pinned version it is the log's word on a yank.
func WarnLoggedState(io *iostreams.IOStreams, p *client.Package, v *client.Version, version string, st *client.StateProof) {
	if st == nil {
		return
	}
	if st.State.IsYanked(version) && (v == nil || !v.Yanked) {
		io.Info("warning: the log shows %s %s yanked (entry %d), though the registry does not say so", p.FullName(), version, st.Index)
	}
	if st.State.Deprecated != "" && p.Deprecated == "" {
		io.Info("warning: the log shows %s deprecated (entry %d), though the registry does not say so: %s", p.FullName(), st.Index, st.State.Deprecated)
	}
}

// yankedNote adds that the log's state shows version yanked.
func yankedNote(st *client.StateProof, version string) string {
	if st.State.IsYanked(version) {
		return ", and shows " + version + " yanked"
	}
	return ""
}

// DescribeCosigners says who cosigned a checkpoint and when a quorum last
// did: "w1 and w2 (a quorum at 2026-11-22 22:05:01 UTC)".
func DescribeCosigners(w *translog.Witnessed) string {
	names := make([]string, 0, len(w.Cosigned))
	for name := range w.Cosigned {
		names = append(names, text.Safe(name))
	}
	sort.Strings(names)
	text := "no witness"
	switch n := len(names); {
	case n == 1:
		text = names[0]
	case n > 1:
		text = strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
	if !w.QuorumTime.IsZero() {
		text += " (a quorum at " + w.QuorumTime.UTC().Format("2006-01-02 15:04:05") + " UTC)"
	}
	return text
}

// NoSuchVersion is the registry's "no such version" (err) with the
// versions detail has, newest first, the yanked ones marked.
func NoSuchVersion(err error, detail *client.PackageDetail) error {
	var names []string
	for i, v := range detail.Versions {
		if i == maxVersionsNamed {
			names = append(names, fmt.Sprintf("and %d more ('pact info %s')", len(detail.Versions)-i, detail.Package.FullName()))
			break
		}
		name := v.Version
		if v.Yanked {
			name += " (yanked)"
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return &cmdutil.NotFoundError{Msg: err.Error() + "; it has no version at all"}
	}
	return &cmdutil.NotFoundError{Msg: err.Error() + "; its versions, newest first: " + strings.Join(names, ", ")}
}

// maxVersionsNamed bounds the versions a missing version's error lists.
const maxVersionsNamed = 20

// ProofSuffix names a document's offline proof: hello.pact.md.tlog-proof.
const ProofSuffix = ".tlog-proof"

// VerifiedDownload is what VerifyDownload proved: the version's entry and,
// when the log holds one, the package's newest state (nil otherwise).
type VerifiedDownload struct {
	*client.VersionProof
	State *client.StateProof
}
