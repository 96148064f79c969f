package trust

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
)

// The issuers of GitHub Actions and GitLab.com, which --github and
// --gitlab name (docs/protocol.md, Trusted publishing).
const (
	githubIssuer = "https://token.actions.githubusercontent.com"
	gitlabIssuer = "https://gitlab.com"
)

func NewTrustCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trust <command>",
		Short: "Let CI jobs publish with no stored token (trusted publishing)",
		Long: `Manage your trusted publishers: CI jobs (GitHub Actions, GitLab CI, or any
OpenID Connect issuer the registry allows) whose ID tokens carry the claims
you name may exchange them for a publish token valid 15 minutes, limited to
the packs you name. 'pact publish' in such a job needs no token.

These commands need a token with the tokens scope; adding one needs the
publish scope too. A trusted publisher never exceeds the token that adds
it: with a token limited to some packs, --package must name those globs
or packs they match; with an expiring token, the trusted publisher
expires with it. --owner ORG manages the trusted publishers of an
organisation you own instead of your own.

'pact trust require PACK' lets only those CI jobs publish a package: tokens
and SSH-signed publishes are then refused, until the owner turns it off on
the dashboard (no token can).`,
		Example: `  $ pact trust add --github alice/widget --repository-id 123456 --workflow release.yml --package widget --package 'widget-*'
  $ pact trust add --gitlab alice/gadget --project-id 20 --package gadget
  $ pact trust add --issuer https://token.actions.githubusercontent.com --package widget \
      --claim repository=alice/widget --claim environment=release
  $ pact trust list
  $ pact trust remove 3
  $ pact trust require widget`,
		Args: cmdutil.NoSubcommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newTrustAddCmd(f), newTrustListCmd(f), newTrustRemoveCmd(f), newTrustRequireCmd(f))
	return cmd
}

type trustAddOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory

	Issuer   string
	GitHub   string
	Workflow string
	Ref      string
	GitLab   string
	// The ids that bind the trust to one repository or project.
	RepositoryID      string
	RepositoryOwnerID string
	ProjectID         string
	NamespaceID       string
	Packages          []string
	Claims            []string
	Owner             string
	JSON              bool
}

func newTrustAddCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &trustAddOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "add --package GLOB (--github OWNER/REPO | --gitlab GROUP/PROJECT | --issuer URL --claim NAME=VALUE)",
		Short: "Trust a CI job to publish packs",
		Long: `Trust the CI jobs whose OpenID Connect ID tokens carry every claim given,
each compared exactly, to publish the packs --package names (a pack that
does not exist yet may be named: the first publish creates it).

--github OWNER/REPO trusts GitHub Actions runs of that repository (claim
repository); --workflow FILE narrows it to one workflow file on --ref
(default refs/heads/main; claim job_workflow_ref). --gitlab GROUP/PROJECT
trusts GitLab.com pipelines of that project (claim project_path). --claim
adds any claim the registry knows: repository, repository_id,
repository_owner, repository_owner_id, job_workflow_ref, workflow_ref,
workflow, environment, ref, project_path, project_id, namespace_path,
namespace_id, ci_config_ref_uri.

Names change hands: a repository renamed, deleted or transferred, then
re-created under its old name by someone else, inherits a trust by names.
Bind the trust to ids, which never change hands: --repository-id and
--repository-owner-id with --github (gh api repos/OWNER/REPO --jq
'.id, .owner.id' prints them), --project-id and --namespace-id with
--gitlab (the project's page shows its ID). pact says whether the trust
is bound, and 'pact trust list' marks the trusts by names only.`,
		Example: `  $ pact trust add --github alice/widget --repository-id 123456 --repository-owner-id 654321 \
      --workflow release.yml --package widget
  $ pact trust add --gitlab alice/gadget --project-id 20 --claim environment=production --package gadget`,
		Args: cmdutil.UsageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTrustAdd(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Issuer, "issuer", "", "OpenID Connect issuer (default: GitHub's with --github, GitLab.com's with --gitlab)")
	fl.StringVar(&opts.GitHub, "github", "", "GitHub repository OWNER/REPO whose workflows may publish")
	fl.StringVar(&opts.Workflow, "workflow", "", "with --github: the workflow file (under .github/workflows) that may publish")
	fl.StringVar(&opts.Ref, "ref", "refs/heads/main", "with --workflow: the git ref the workflow runs on")
	fl.StringVar(&opts.GitLab, "gitlab", "", "GitLab project GROUP/PROJECT whose pipelines may publish")
	fl.StringVar(&opts.RepositoryID, "repository-id", "", "the GitHub repository's numeric id (claim repository_id): binds the trust to that repository")
	fl.StringVar(&opts.RepositoryOwnerID, "repository-owner-id", "", "the GitHub repository owner's numeric id (claim repository_owner_id)")
	fl.StringVar(&opts.ProjectID, "project-id", "", "the GitLab project's numeric id (claim project_id): binds the trust to that project")
	fl.StringVar(&opts.NamespaceID, "namespace-id", "", "the GitLab group's or user's numeric id (claim namespace_id)")
	fl.StringArrayVar(&opts.Packages, "package", nil, "pack name or glob such as 'widget-*' that may be published (repeatable; required)")
	fl.StringArrayVar(&opts.Claims, "claim", nil, "NAME=VALUE the ID token must carry (repeatable)")
	fl.StringVar(&opts.Owner, "owner", "", "an organisation you own whose packs the CI job may publish (default: your own)")
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

func (opts *trustAddOptions) request() (issuer string, claims map[string]string, err error) {
	claims = map[string]string{}
	issuer = opts.Issuer
	switch {
	case opts.GitHub != "" && opts.GitLab != "":
		return "", nil, cmdutil.UsageErrorf("give --github or --gitlab, not both")
	case opts.GitHub != "":
		if issuer == "" {
			issuer = githubIssuer
		}
		claims["repository"] = opts.GitHub
		if opts.Workflow != "" {
			claims["job_workflow_ref"] = opts.GitHub + "/.github/workflows/" + opts.Workflow + "@" + opts.Ref
		}
	case opts.GitLab != "":
		if issuer == "" {
			issuer = gitlabIssuer
		}
		claims["project_path"] = opts.GitLab
	}
	if opts.Workflow != "" && opts.GitHub == "" {
		return "", nil, cmdutil.UsageErrorf("--workflow needs --github")
	}
	for _, id := range []struct{ flag, claim, value, not, notFlag string }{
		{"--repository-id", "repository_id", opts.RepositoryID, opts.GitLab, "--gitlab"},
		{"--repository-owner-id", "repository_owner_id", opts.RepositoryOwnerID, opts.GitLab, "--gitlab"},
		{"--project-id", "project_id", opts.ProjectID, opts.GitHub, "--github"},
		{"--namespace-id", "namespace_id", opts.NamespaceID, opts.GitHub, "--github"},
	} {
		if id.value == "" {
			continue
		}
		if id.not != "" {
			return "", nil, cmdutil.UsageErrorf("%s (claim %s) does not go with %s", id.flag, id.claim, id.notFlag)
		}
		claims[id.claim] = id.value
	}
	for _, c := range opts.Claims {
		name, value, ok := strings.Cut(c, "=")
		if !ok || name == "" {
			return "", nil, cmdutil.UsageErrorf("--claim %q is not NAME=VALUE", c)
		}
		claims[name] = value
	}
	if issuer == "" {
		return "", nil, cmdutil.UsageErrorf("give --github, --gitlab or --issuer")
	}
	if len(opts.Packages) == 0 {
		return "", nil, cmdutil.UsageErrorf("give at least one --package: the packs this CI job may publish")
	}
	return issuer, claims, nil
}

func runTrustAdd(ctx context.Context, opts *trustAddOptions) error {
	issuer, claims, err := opts.request()
	if err != nil {
		return err
	}
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	p, err := c.AddTrustedPublisher(ctx, opts.Owner, issuer, opts.Packages, claims)
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, p)
	}
	opts.IO.Success("Trusted publisher %d: %s may publish %s", p.ID, shared.DescribeClaims(p.Claims), strings.Join(p.Packages, ", "))
	if p.ExpiresAt != nil {
		opts.IO.Info("It expires at %s, with the token that added it", text.FormatTime(*p.ExpiresAt))
	}
	if p.NamesOnly {
		opts.IO.Info("It is bound by names only: a repository or project renamed, deleted or transferred, then re-created " +
			"under this name by someone else, would inherit it. Bind it to ids with --repository-id (GitHub) or --project-id (GitLab).")
		return nil
	}
	var ids []string
	for _, name := range slices.Sorted(maps.Keys(p.Claims)) {
		if strings.HasSuffix(name, "_id") {
			ids = append(ids, name+"="+p.Claims[name])
		}
	}
	opts.IO.Info("It is bound to %s, which a re-created repository or project does not carry.", strings.Join(ids, " "))
	return nil
}

type trustListOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	Owner   string
	JSON    bool
}

func newTrustListCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &trustListOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List your trusted publishers",
		Long: `List your trusted publishers, oldest first: the issuer, the packs and the
claims each requires, when it expires (never: until removed) and who added
it (with which token; "dashboard" when added there). A trust that names its
repository or project by names only, with none of repository_id,
repository_owner_id, project_id and namespace_id, is marked "(names only)":
whoever re-creates one of those names inherits it.`,
		Example: `  $ pact trust list
  $ pact trust list --json`,
		Args: cmdutil.UsageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTrustList(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Owner, "owner", "", "list an organisation's trusted publishers (you must be one of its owners)")
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runTrustList(ctx context.Context, opts *trustListOptions) error {
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	list, err := c.ListTrustedPublishers(ctx, opts.Owner)
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, list)
	}
	if len(list) == 0 {
		opts.IO.Info("No trusted publishers; add one with 'pact trust add'")
		return nil
	}
	return printTrustedPublishers(opts.IO.Out, list)
}

func printTrustedPublishers(w io.Writer, list []client.TrustedPublisher) error {
	t := cmdutil.NewTable(w)
	fmt.Fprintln(t, "ID\tISSUER\tPACKAGES\tCLAIMS\tCREATED\tEXPIRES\tCREATED BY")
	for _, p := range list {
		claims := shared.DescribeClaims(p.Claims)
		if p.NamesOnly {
			claims += " (names only)"
		}
		expires := "never"
		if p.ExpiresAt != nil {
			expires = text.FormatTime(*p.ExpiresAt)
		}
		cmdutil.WriteRow(t, strconv.FormatInt(p.ID, 10), p.Issuer, strings.Join(p.Packages, ","), claims, text.FormatTime(p.CreatedAt),
			expires, describeMaker(p.CreatedBy))
	}
	return t.Flush()
}

// describeMaker is "alice (token 12)", "alice (dashboard)", or "unknown"
// for trusted publishers added before pact recorded who added them.
func describeMaker(m *client.Maker) string {
	switch {
	case m == nil:
		return "unknown"
	case m.TokenID == nil:
		return m.Username + " (dashboard)"
	}
	return fmt.Sprintf("%s (token %d)", m.Username, *m.TokenID)
}

type trustRemoveOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	Owner   string
	ID      int64
}

func newTrustRemoveCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &trustRemoveOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:     "remove ID",
		Aliases: []string{"rm", "delete"},
		Short:   "Remove a trusted publisher",
		Long: `Remove a trusted publisher by the ID 'pact trust list' shows: its CI jobs can
no longer exchange ID tokens. Tokens they got already expire within 15
minutes; 'pact token revoke' ends them sooner.`,
		Example: `  $ pact trust remove 3`,
		Args:    cmdutil.UsageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id < 1 {
				return cmdutil.UsageErrorf("%q is not a trusted publisher ID: 'pact trust list' shows them", args[0])
			}
			opts.ID = id
			return runTrustRemove(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Owner, "owner", "", "remove one of an organisation's trusted publishers (you must be one of its owners)")
	return cmd
}

func runTrustRemove(ctx context.Context, opts *trustRemoveOptions) error {
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	if err := c.RemoveTrustedPublisher(ctx, opts.Owner, opts.ID); err != nil {
		return err
	}
	opts.IO.Success("Removed trusted publisher %d", opts.ID)
	return nil
}
