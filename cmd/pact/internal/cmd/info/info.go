package info

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
)

type infoOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory

	Owner, Pack string
	JSON        bool
}

func NewInfoCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &infoOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "info [OWNER/]PACK",
		Short: "Show a package: its versions, latest, deprecation and releases",
		Long: `Show a package as the registry holds it: its name and description, its
latest version, its deprecation, whether only CI may publish it (trusted
publishing only), its downloads (in all and in the last 90 days), every
version newest first (when it was published, how: signed by an SSH key, by
a CI job through trusted publishing, or with a token, and for an
organisation's package by which member; its downloads; whether
it is yanked and why; its entry in the transparency log) and its releases.
Without OWNER the package is one of the token's account. Downloads are raw
GETs of the documents, as the registry has counted them so far (it adds its
counts every 30 seconds by default).

--json prints {"package", "versions", "downloads", "releases"}: the package
and versions as GET /api/packages/OWNER/PACK answers them, the downloads as
GET /api/packages/OWNER/PACK/downloads does (null from a registry without
download counts), and the releases as GET /api/contracts/OWNER/PACK/releases
lists them (the newest 100).`,
		Example: `  $ pact info alice/widget
  $ pact info widget --json`,
		Args: cmdutil.UsageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			owner, pack, hasOwner := strings.Cut(args[0], "/")
			if !hasOwner {
				owner, pack = "", args[0]
			}
			if pack == "" || strings.ContainsAny(pack, "/@") || (hasOwner && owner == "") {
				return cmdutil.UsageErrorf("%q is not PACK or OWNER/PACK", args[0])
			}
			opts.Owner, opts.Pack = owner, pack
			return runInfo(cmd.Context(), opts)
		},
	}
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

// infoOutput is what --json prints.
type infoOutput struct {
	Package  client.Package   `json:"package"`
	Versions []client.Version `json:"versions"`
	// Downloads is nil from a registry that counts none (older than
	// download counts: 404 for a package it has just answered).
	Downloads *client.PackageDownloads `json:"downloads"`
	Releases  []client.ReleaseSummary  `json:"releases"`
}

// infoReleases is how many releases info shows, the newest first.
const infoReleases = 100

func runInfo(ctx context.Context, opts *infoOptions) error {
	c, owner, err := shared.ClientAndOwner(ctx, opts.Factory, opts.Owner)
	if err != nil {
		return err
	}
	detail, err := c.GetPackage(ctx, owner, opts.Pack)
	if err != nil {
		return err
	}
	downloads, err := c.GetDownloads(ctx, owner, opts.Pack)
	if err != nil && !client.IsNotFound(err) {
		return err
	}
	releases, err := c.ListReleases(ctx, owner, opts.Pack, infoReleases, "")
	if err != nil {
		return err
	}
	out := infoOutput{Package: detail.Package, Versions: detail.Versions, Downloads: downloads, Releases: releases.Releases}
	if out.Versions == nil {
		out.Versions = []client.Version{}
	}
	if out.Releases == nil {
		out.Releases = []client.ReleaseSummary{}
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, out)
	}

	p := &out.Package
	w := opts.IO.Out
	fmt.Fprintf(w, "%s", text.Safe(p.FullName()))
	if p.Name != "" && p.Name != p.PackSlug {
		fmt.Fprintf(w, " (%s)", text.Safe(p.Name))
	}
	fmt.Fprintln(w)
	if p.Description != "" {
		fmt.Fprintln(w, text.Safe(p.Description))
	}
	fmt.Fprintf(w, "latest:     %s\n", text.OrDash(p.Version))
	if p.Scheme != "" {
		fmt.Fprintf(w, "scheme:     %s\n", text.Safe(p.Scheme))
	}
	if p.Deprecated != "" {
		fmt.Fprintf(w, "deprecated: %s\n", text.Safe(p.Deprecated))
	}
	if p.TrustedPublishingOnly {
		fmt.Fprintln(w, "publishing: only CI (trusted publishing only)")
	}
	if d := out.Downloads; d != nil {
		var recent int64
		for _, day := range d.Days {
			recent += day.Count
		}
		fmt.Fprintf(w, "downloads:  %d (%d in the last %d days)\n", d.Total, recent, len(d.Days))
	}
	fmt.Fprintf(w, "page:       %s\n", p.URL)
	fmt.Fprintln(w)

	t := cmdutil.NewTable(w)
	cmdutil.WriteRow(t, "VERSION", "PUBLISHED", "BY", "DOWNLOADS", "LOG", "YANKED")
	for _, v := range out.Versions {
		log := "-"
		if v.LogIndex != nil {
			log = strconv.FormatInt(*v.LogIndex, 10)
		}
		yanked := "-"
		if v.Yanked {
			yanked = "yanked"
			if v.YankReason != "" {
				yanked += ": " + v.YankReason
			}
		}
		downloads := "-"
		if out.Downloads != nil {
			downloads = strconv.FormatInt(out.Downloads.Versions[v.Version], 10)
		}
		cmdutil.WriteRow(t, text.Safe(v.Version), text.FormatTime(v.CreatedAt), publishedHow(&v, p.OwnerSlug), downloads, log, text.Safe(yanked))
	}
	if err := t.Flush(); err != nil {
		return err
	}

	fmt.Fprintln(w)
	if len(out.Releases) == 0 {
		fmt.Fprintln(w, "No releases.")
		return nil
	}
	t = cmdutil.NewTable(w)
	cmdutil.WriteRow(t, "RELEASE", "ARTIFACTS", "REGISTERED")
	for _, r := range out.Releases {
		cmdutil.WriteRow(t, text.Safe(r.Version), strconv.Itoa(r.ArtifactCount), text.FormatTime(r.CreatedAt))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if releases.NextCursor != nil {
		opts.IO.Info("Older releases follow: pact release list %s/%s", owner, opts.Pack)
	}
	return nil
}

// publishedHow says how a version was published: "signed" (an SSH key),
// "ci" (a CI job's token, through trusted publishing) or "token"; and, for
// an organisation's package, by which member ("token by bob"), as the
// registry's published_by names it.
func publishedHow(v *client.Version, owner string) string {
	how := "token"
	switch {
	case v.Signature != nil:
		how = "signed"
	case v.CI != nil:
		how = "ci"
	}
	if by := v.PublishedBy; by != nil && by.Username != "" && !strings.EqualFold(by.Username, owner) {
		how += " by " + by.Username
	}
	return how
}
