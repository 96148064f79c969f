package log

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
	"github.com/pact-registry/pact/pkg/sshsign"
	"github.com/pact-registry/pact/pkg/translog"
)

// Bounds of --interval: often enough to notice, rarely enough to be polite.
const (
	minWatchInterval     = time.Second
	maxWatchInterval     = time.Hour
	defaultWatchInterval = 30 * time.Second
	// watchChunk is how many entries are read (and the position kept) at a
	// time: a few bundles, so a long log is read in bounded memory.
	watchChunk = 16 * translog.TileWidth
)

type logWatchOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory

	Owner    string
	From     int64
	FromSet  bool
	Follow   bool
	Interval time.Duration
	JSON     bool
	Verify   cmdutil.VerifyFlags

	// publishers names the members who published an organisation's
	// versions; set by runLogWatch.
	publishers *publishers
}

// publishers names the member who published a version of an
// organisation's package, as the registry's published_by says: a publish
// entry of the log names the owner (the organisation), the pack and how it
// was published, not the member (docs/protocol.md, Entries). One request
// tells whether the owner is an organisation, one per package (again when
// a version is not yet in the registry's answer) who published what.
type publishers struct {
	c     *client.Client
	owner string
	// isOrg is nil until known.
	isOrg *bool
	// byVersion maps a pack to its versions' publishers.
	byVersion map[string]map[string]string
}

// of answers the member who published owner's pack at version, or ""
// when the owner is no organisation or the registry does not say.
// A registry out of reach only costs the name.
func (p *publishers) of(ctx context.Context, pack, version string) string {
	if p.isOrg == nil {
		_, err := p.c.Org(ctx, p.owner)
		switch {
		case err == nil:
			p.isOrg = new(true)
		case client.IsNotFound(err):
			p.isOrg = new(false)
		default:
			return ""
		}
	}
	if !*p.isOrg {
		return ""
	}
	if by, ok := p.byVersion[pack][version]; ok {
		return by
	}
	detail, err := p.c.GetPackage(ctx, p.owner, pack)
	if err != nil {
		return ""
	}
	versions := map[string]string{}
	for _, v := range detail.Versions {
		if v.PublishedBy != nil {
			versions[v.Version] = v.PublishedBy.Username
		}
	}
	p.byVersion[pack] = versions
	return versions[version]
}

func newLogWatchCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &logWatchOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "watch --owner NAME",
		Short: "Print an owner's events from the transparency log",
		Long: `Print every event of the transparency log for one owner (versions
published, SSH keys added or removed, yanks, packages set to trusted
publishing only or taken off it, deprecations, as the package's state
that the log states after them; for an organisation, members who gained,
changed or lost a role), one line each, from where
the last run for that owner stopped; the first run starts at the log's
beginning, --from N at entry N. It reads up to a checkpoint that covers
everything the registry had logged when asked, so a change just made (by
anyone) is printed. Every entry printed is proved to be in that
checkpoint, which is signed by the log's key and extends the last
checkpoint this machine saw (the key, and a witness policy whose quorum
must have cosigned it within --max-checkpoint-age, as for 'pact get'). A
failed check exits 6.

A publish into an organisation names the member who published as the
registry says (its published_by), marked so: the log's publish entry
names the organisation, not the member.

Without --follow, prints what is new and exits; with --follow, keeps
asking the registry every --interval until interrupted (a registry out of
reach is reported and asked again; a failed check still exits 6). --json
prints one JSON object per line.

The position is kept per registry and owner in the user's cache
directory (e.g. ~/.cache/pact/log/...).

Unlike other commands it has no default --timeout, since its work grows
with the log and --follow runs until interrupted: each request is
bounded (30s an attempt, 4 attempts) and pact says when it waits; a
--timeout given bounds the whole run, --follow included.`,
		Example: `  $ pact log watch --owner alice
  $ pact log watch --owner alice --follow --interval 1m
  $ pact log watch --owner alice --from 0 --json | jq .`,
		Args: cmdutil.UsageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Owner == "" {
				return cmdutil.UsageErrorf("--owner is required")
			}
			opts.FromSet = cmd.Flags().Changed("from")
			if opts.FromSet && opts.From < 0 {
				return cmdutil.UsageErrorf("--from must be 0 or more")
			}
			if opts.Interval < minWatchInterval || opts.Interval > maxWatchInterval {
				return cmdutil.UsageErrorf("--interval must be between %s and %s", minWatchInterval, maxWatchInterval)
			}
			// Its work grows with the log, and with --follow it runs until
			// interrupted: no default bound on the whole (each request
			// has its own), only one the user sets.
			f.Run.ExemptFromDefaultTimeout()
			return runLogWatch(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Owner, "owner", "", "the owner whose events to print (required)")
	cmd.Flags().Int64Var(&opts.From, "from", 0, "start at this log index instead of the kept position")
	cmd.Flags().BoolVar(&opts.Follow, "follow", false, "keep polling for new events until interrupted")
	cmd.Flags().DurationVar(&opts.Interval, "interval", defaultWatchInterval, "with --follow, how often to poll (1s to 1h)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON object per line for scripts")
	cmdutil.AddVerifyFlags(cmd, &opts.Verify, false)
	return cmd
}

func runLogWatch(ctx context.Context, opts *logWatchOptions) error {
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	v, err := opts.Factory.LogVerifier(ctx, c, opts.Verify)
	if err != nil {
		return err
	}
	owner := strings.ToLower(opts.Owner)
	opts.publishers = &publishers{c: c, owner: owner, byVersion: map[string]map[string]string{}}
	pos, _ := v.WatchPosition(owner)
	if opts.FromSet {
		pos = opts.From
	}
	for {
		next, err := watchOnce(ctx, opts, c, v, owner, pos)
		pos = next
		var verr *client.VerificationError
		var redirect *client.RedirectError
		switch {
		case err == nil:
		case opts.Follow && ctx.Err() != nil:
			return nil // interrupting --follow is how it ends
		case opts.Follow && !errors.As(err, &verr) && !errors.As(err, &redirect):
			// The registry is unreachable for a while: say so, keep watching.
			opts.IO.Info("warning: %v; trying again in %s", err, opts.Interval)
		default:
			return err
		}
		if !opts.Follow {
			return nil
		}
		t := time.NewTimer(opts.Interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// watchOnce prints owner's events from pos to a checkpoint that covers
// everything logged so far (so a change just made is printed) and returns
// where the next round starts.
func watchOnce(ctx context.Context, opts *logWatchOptions, c *client.Client, v *client.LogVerifier, owner string, pos int64) (int64, error) {
	cp, err := v.Current(ctx)
	if err != nil {
		return pos, opts.Factory.ExplainKeyMismatch(ctx, c, v, err)
	}
	// The entry before each one: a pack-state entry right after its
	// package's publish, yank or unyank only restates it, and is not shown.
	var before []byte
	if pos > 0 && pos < cp.Size {
		prev, err := v.Entries(ctx, cp, pos-1, pos)
		if err != nil {
			return pos, err
		}
		before = prev[0]
	}
	for pos < cp.Size {
		end := min(cp.Size, pos+watchChunk)
		entries, err := v.Entries(ctx, cp, pos, end)
		if err != nil {
			return pos, err
		}
		for i, data := range entries {
			if !restatesEvent(before, data) {
				if err := printLogEvent(ctx, opts, owner, pos+int64(i), data); err != nil {
					return pos, err
				}
			}
			before = data
		}
		pos = end
		if err := v.SetWatchPosition(owner, pos); err != nil {
			return pos, fmt.Errorf("keeping the watch position: %w", err)
		}
	}
	return pos, nil
}

// restatesEvent reports whether data is a pack-state entry that follows
// its package's publish, yank or unyank (before): it states what that
// event left, which the event's line says. A pack-state entry after
// anything else (a deprecation, which has no entry of its own) is shown.
func restatesEvent(before, data []byte) bool {
	e, err := translog.Parse(data)
	if err != nil || e.Kind != translog.KindPackState || before == nil {
		return false
	}
	b, err := translog.Parse(before)
	if err != nil {
		return false
	}
	switch b.Kind {
	case translog.KindPublish, translog.KindYank, translog.KindUnyank:
		return b.Get("owner") == e.Get("owner") && b.Get("pack") == e.Get("pack")
	}
	return false
}

// printLogEvent prints entry index if it is owner's; a publish into an
// organisation with the member who published, as the registry says.
func printLogEvent(ctx context.Context, opts *logWatchOptions, owner string, index int64, data []byte) error {
	e, err := translog.Parse(data)
	if err != nil {
		return &client.VerificationError{Check: "entry", Msg: fmt.Sprintf("the log's entry %d does not parse: %v", index, err)}
	}
	if e.Get("owner") != owner {
		return nil
	}
	by := ""
	if e.Kind == translog.KindPublish && opts.publishers != nil {
		by = opts.publishers.of(ctx, e.Get("pack"), e.Get("version"))
	}
	if opts.JSON {
		event := logEventJSON(index, e)
		if by != "" {
			event["published_by"] = by
		}
		line, err := json.Marshal(event)
		if err != nil {
			return err
		}
		_, err = opts.IO.Out.Write(append(text.EscapeJSON(line), '\n'))
		return err
	}
	line := describeLogEvent(e)
	if by != "" {
		// Not the log's word: its publish entries do not name the member.
		line = strings.TrimSuffix(line, ")") + "; by " + text.Safe(by) + ", as the registry says)"
	}
	_, err = fmt.Fprintln(opts.IO.Out, line)
	return err
}

// describeLogEvent is one line for people:
// "2026-11-22 22:00 alice published widget 1.2.0 (ssh SHA256:…)".
func describeLogEvent(e *translog.Entry) string {
	when := text.FormatTime(e.Time)
	who := text.Safe(e.Get("owner"))
	get := func(k string) string { return text.Safe(e.Get(k)) }
	switch e.Kind {
	case translog.KindPublish:
		how := "token"
		if e.Get("auth") == translog.AuthSSH {
			how = "ssh " + keyFingerprint(e.Get("key"))
		}
		return fmt.Sprintf("%s %s published %s %s (%s)", when, who, get("pack"), get("version"), how)
	case translog.KindKeyAdd:
		return fmt.Sprintf("%s %s added key %s (%s)", when, who, get("fingerprint"), keyType(e.Get("key")))
	case translog.KindKeyRemove:
		return fmt.Sprintf("%s %s removed key %s (%s)", when, who, get("fingerprint"), keyType(e.Get("key")))
	case translog.KindYank:
		reason, _ := translog.ParseJSONString(e.Get("reason"))
		line := fmt.Sprintf("%s %s yanked %s %s", when, who, get("pack"), get("version"))
		if reason != "" {
			line += ": " + text.Safe(reason)
		}
		return line
	case translog.KindUnyank:
		return fmt.Sprintf("%s %s unyanked %s %s", when, who, get("pack"), get("version"))
	case translog.KindRelease:
		line := fmt.Sprintf("%s %s registered the release of %s %s (%s", when, who, get("pack"), get("version"), text.PluralText(get("artifacts"), "artifact", "artifacts"))
		if commit := e.Get("commit"); commit != "" {
			line += ", commit " + text.Safe(commit)
		}
		return line + ")"
	case translog.KindMember:
		return fmt.Sprintf("%s %s: %s became %s (by %s)", when, who, get("member"), get("role"), get("by"))
	case translog.KindMemberRemove:
		return fmt.Sprintf("%s %s: %s was removed (by %s)", when, who, get("member"), get("by"))
	case translog.KindTrustedPublisherRemove:
		return fmt.Sprintf("%s %s: trusted publisher %s (%s, packages %s), which %s added, went with its owner role; %s revoked (by %s)",
			when, who, get("trusted-publisher"), get("issuer"), get("packages"), get("member"), text.PluralText(get("revoked-tokens"), "token", "tokens"), get("by"))
	case translog.KindPackState:
		st, _ := e.PackState()
		line := fmt.Sprintf("%s %s: the state of %s is latest %s", when, who, get("pack"), text.Safe(text.OrNone(st.Latest)))
		if len(st.Yanked) > 0 {
			line += ", yanked " + text.Safe(strings.Join(st.Yanked, " "))
		}
		if st.Deprecated != "" {
			return line + ", deprecated: " + text.Safe(st.Deprecated)
		}
		return line + ", not deprecated"
	case translog.KindTrustedPublishingOnly:
		if e.Get("value") == "true" {
			return fmt.Sprintf("%s %s set %s to trusted publishing only: only CI may publish it (by %s)", when, who, get("pack"), get("by"))
		}
		return fmt.Sprintf("%s %s took %s off trusted publishing only: tokens and SSH keys may publish it again (by %s)", when, who, get("pack"), get("by"))
	default:
		var parts []string
		for _, f := range e.Fields {
			if f.Key != "owner" {
				parts = append(parts, text.Safe(f.Key+"="+f.Value))
			}
		}
		return fmt.Sprintf("%s %s %s %s", when, who, text.Safe(e.Kind), strings.Join(parts, " "))
	}
}

// logEventJSON is an entry for scripts: index, kind, time and every field
// (hyphens in names become underscores), with free text decoded and the
// signer's fingerprint added.
func logEventJSON(index int64, e *translog.Entry) map[string]any {
	out := map[string]any{"index": index, "kind": e.Kind, "time": e.Time.UTC().Format(time.RFC3339)}
	for _, f := range e.Fields {
		out[strings.ReplaceAll(f.Key, "-", "_")] = f.Value
	}
	if e.Kind == translog.KindYank {
		if reason, err := translog.ParseJSONString(e.Get("reason")); err == nil {
			out["reason"] = reason
		}
	}
	if e.Kind == translog.KindPackState {
		if st, err := e.PackState(); err == nil {
			out["yanked"], out["deprecated"] = append([]string{}, st.Yanked...), st.Deprecated
		}
	}
	if e.Kind == translog.KindRelease {
		if r, err := e.Release(); err == nil {
			out["artifacts"] = r.Artifacts
		}
	}
	if e.Kind == translog.KindTrustedPublishingOnly {
		if ev, err := e.TrustedPublishingOnly(); err == nil {
			out["value"] = ev.Only
		}
	}
	if e.Kind == translog.KindPublish {
		if p, err := e.Publish(); err == nil {
			out["size"] = p.Size
			if p.Auth == translog.AuthSSH {
				out["signed_lines"] = string(p.SignedLines)
				out["fingerprint"] = keyFingerprint(p.Key)
			}
		}
	}
	return out
}

func keyFingerprint(line string) string {
	if strings.HasPrefix(line, "SHA256:") {
		return text.Safe(line) // a key logged before the registry kept it: its fingerprint
	}
	pub, _, err := sshsign.ParseAuthorizedKey(line)
	if err != nil {
		return "unknown key"
	}
	return sshsign.Fingerprint(pub)
}

func keyType(line string) string {
	typ, _, _ := strings.Cut(line, " ")
	return text.Safe(typ)
}
