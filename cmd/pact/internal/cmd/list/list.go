package list

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
	"github.com/pact-registry/pact/pkg/clip"
)

type listOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory

	Limit  int
	Cursor string
	Owner  string
	Scheme string
	Query  string
	All    bool
	JSON   bool
	// Again is the command line that lists the next page, with the
	// user's flags but --cursor.
	Again string
}

func NewListCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &listOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List packages, newest latest version first",
		Long: `List the registry's packages, the one whose latest version was published most
recently first, one page at a time. VERSION is the latest version: the
highest semantic version not yanked, not the last publish; a package whose
every version is yanked is not listed. DOWNLOADS counts the package's
raw documents served, every version's, in all. A deprecated package shows
"DEPRECATED: " and its message instead of its description. On a terminal
descriptions are cut (…) to fit its width; piped, they are printed whole.
When more packages follow, pact says so on stderr with the command that
lists the next page (your flags and the next page's cursor); --all fetches
every page.

--query searches: every word must occur in the package's owner/slug, name or
description (case-insensitive). Results are ranked: the slug equal to the
words joined by "-" (or, for OWNER/SLUG, that package) first, then slugs
starting with them in alphabetical order, then every other match, newest
first. Words all shorter than 3 characters match slugs (exactly or by
prefix) and owner names only. At most 200 bytes and 16 words. A search's
--cursor must be passed with the same --query, --owner and --scheme.`,
		Example: `  $ pact list
  $ pact list --owner alice --scheme chat
  $ pact list --query "code review" --limit 5
  $ pact list -q alice/widget
  $ pact list --all --json | jq -r '.packages[].raw_url'`,
		Args: cmdutil.UsageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Limit < 1 || opts.Limit > 100 {
				return cmdutil.UsageErrorf("--limit must be between 1 and 100")
			}
			if opts.All && opts.Cursor != "" {
				return cmdutil.UsageErrorf("use either --all or --cursor, not both")
			}
			opts.Again = againCommand(cmd, "cursor", "all", "json")
			return runList(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.IntVarP(&opts.Limit, "limit", "L", 20, "packages per page (1-100)")
	fl.StringVar(&opts.Cursor, "cursor", "", "start at this page (the next_cursor of the previous one)")
	fl.StringVar(&opts.Owner, "owner", "", "only packages of this owner")
	fl.StringVar(&opts.Scheme, "scheme", "", "only packages of this scheme")
	fl.StringVarP(&opts.Query, "query", "q", "", "search: packages whose owner/slug, name or description holds every word, exact slug first")
	fl.BoolVar(&opts.All, "all", false, "follow next_cursor and list every matching package")
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

// listOutput is what --json prints: the page (or all pages) and the cursor
// of what follows, null when nothing does.
type listOutput struct {
	Packages   []client.Package `json:"packages"`
	NextCursor *string          `json:"next_cursor"`
	// Suggestions are the first page's: slugs near the words of a search
	// that found little.
	Suggestions []string `json:"suggestions,omitempty"`
}

func runList(ctx context.Context, opts *listOptions) error {
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	query := client.ListOptions{Limit: opts.Limit, Cursor: opts.Cursor, Query: opts.Query, Owner: opts.Owner, Scheme: opts.Scheme}
	out := listOutput{Packages: []client.Package{}}
	for {
		page, err := c.ListPackages(ctx, query)
		if err != nil {
			return err
		}
		out.Packages = append(out.Packages, page.Packages...)
		if query.Cursor == opts.Cursor {
			out.Suggestions = page.Suggestions
		}
		if page.NextCursor == "" {
			break
		}
		if !opts.All {
			cursor := page.NextCursor
			out.NextCursor = &cursor
			break
		}
		query.Cursor = page.NextCursor
	}

	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, out)
	}
	if len(out.Suggestions) > 0 {
		// Said last, under the table or "No packages found".
		defer opts.IO.Info("Did you mean: %s", strings.Join(out.Suggestions, ", "))
	}
	if len(out.Packages) == 0 {
		opts.IO.Info("No packages found")
		return nil
	}
	rows := [][]string{{"PACKAGE", "VERSION", "SCHEME", "UPDATED", "DOWNLOADS", "DESCRIPTION"}}
	for _, p := range out.Packages {
		description := p.Description
		if p.Deprecated != "" {
			// The owner's warning comes before the description.
			description = "DEPRECATED: " + p.Deprecated
		}
		rows = append(rows, []string{p.FullName(), p.Version, text.OrDash(p.Scheme), text.FormatTime(p.UpdatedAt), strconv.FormatInt(p.Downloads, 10), description})
	}
	if err := writeFitted(opts.IO.Out, rows, opts.IO.TerminalWidth()); err != nil {
		return err
	}
	if out.NextCursor != nil {
		// A search's cursor belongs to its search: the hint repeats it,
		// as it repeats every flag the user gave.
		opts.IO.Info("More packages follow: %s --cursor %s (or --all)", opts.Again, *out.NextCursor)
	}
	return nil
}

// writeFitted prints rows as a table whose last column is cut (…) so
// that lines fit width columns; width 0 cuts nothing. Cells are shown
// through text.Safe.
func writeFitted(w io.Writer, rows [][]string, width int) error {
	const gap = 2
	widths := map[int]int{}
	for _, row := range rows {
		for i := range row {
			row[i] = text.Safe(row[i])
			if i < len(row)-1 {
				widths[i] = max(widths[i], utf8.RuneCountInString(row[i]))
			}
		}
	}
	budget := 0
	if width > 0 {
		budget = width - 1 // the last column never reaches the edge, where some terminals wrap
		for _, n := range widths {
			budget -= n + gap
		}
		budget = max(budget, 12) // a narrow terminal still shows the start
	}
	t := cmdutil.NewTable(w)
	for _, row := range rows {
		if last := len(row) - 1; budget > 0 && last >= 0 && utf8.RuneCountInString(row[last]) > budget {
			row[last] = clip.Text(row[last], budget-1) // and the ellipsis: budget characters
		}
		fmt.Fprintln(t, strings.Join(row, "\t"))
	}
	return t.Flush()
}

// againCommand is the command line of cmd with the flags the user gave,
// but those named in omit: the hint for the next page. The token is never
// repeated.
func againCommand(cmd *cobra.Command, omit ...string) string {
	words := []string{cmd.CommandPath()}
	add := func(fl *pflag.Flag) {
		if !fl.Changed || fl.Name == "token" || slices.Contains(omit, fl.Name) {
			return
		}
		name := "--" + fl.Name
		if fl.Shorthand != "" {
			name = "-" + fl.Shorthand
		}
		if fl.Value.Type() == "bool" {
			if fl.Value.String() == "true" {
				words = append(words, "--"+fl.Name)
			} else {
				words = append(words, "--"+fl.Name+"=false")
			}
			return
		}
		words = append(words, name, shellWord(fl.Value.String()))
	}
	cmd.InheritedFlags().VisitAll(add)
	cmd.LocalFlags().VisitAll(add)
	return strings.Join(words, " ")
}

// shellWord quotes s for a POSIX shell when it holds more than letters,
// digits and ._/:@- .
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/:@-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
