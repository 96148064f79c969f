package validate

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
)

type validateOptions struct {
	IO    *iostreams.IOStreams
	Files []string
	JSON  bool
}

func NewValidateCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &validateOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check pack documents offline",
		Long: `Check pack documents without contacting a registry, by the same rules the
registry applies: exactly one yaml pact:pack block that holds a mapping,
a name and a version. Prints the name, slug, version and scheme each file
would publish as; errors name the line. "-" reads standard input.

Letters with diacritics become their base letters in the slug ("Crème
Brûlée" is creme-brulee). When the name still loses characters on the
way (letters with no slug form, such as 中文) or the slug is cut to 64
characters, a warning on standard error says so; --json lists them
under "warnings". Warnings do not change the exit code.

Exits 1 when any file is invalid.`,
		Example: `  $ pact validate hello.pact.md
  $ pact validate --json packs/*.pact.md`,
		Args: cmdutil.UsageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			return runValidate(cmd.Context(), opts)
		},
	}
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runValidate(_ context.Context, opts *validateOptions) error {
	if err := shared.CheckStdinOnce(opts.Files); err != nil {
		return err
	}
	results := make([]*shared.Validation, 0, len(opts.Files))
	invalid := 0
	for _, file := range opts.Files {
		content, err := shared.ReadDocument(opts.IO, file)
		if err != nil {
			return err
		}
		v := shared.ValidateDocument(file, content, "", "")
		if !v.Valid {
			invalid++
			opts.IO.Info("%s", v.Problem())
		}
		shared.PrintWarnings(opts.IO, file, v.Warnings)
		results = append(results, v)
	}
	if opts.JSON {
		if err := cmdutil.ExportJSON(opts.IO.Out, results); err != nil {
			return err
		}
	} else if err := printValidations(opts.IO.Out, results); err != nil {
		return err
	}
	if invalid > 0 {
		return &cmdutil.SilentError{Code: cmdutil.ExitError}
	}
	return nil
}

// printValidations prints the valid documents as a table.
func printValidations(w io.Writer, results []*shared.Validation) error {
	t := cmdutil.NewTable(w)
	header := false
	for _, v := range results {
		if !v.Valid {
			continue
		}
		if !header {
			fmt.Fprintln(t, "FILE\tNAME\tSLUG\tVERSION\tSCHEME")
			header = true
		}
		cmdutil.WriteRow(t, v.File, v.Name, v.Slug, v.Version, text.OrDash(v.Scheme))
	}
	return t.Flush()
}
