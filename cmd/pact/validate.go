package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/pkg/packfmt"
)

type validateOptions struct {
	IO    *iostreams
	Files []string
	JSON  bool
}

func newValidateCmd(f *factory) *cobra.Command {
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
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			return runValidate(cmd.Context(), opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

// validation is the offline verdict on one document.
type validation struct {
	File        string `json:"file"`
	Valid       bool   `json:"valid"`
	Name        string `json:"name,omitempty"`
	Slug        string `json:"slug,omitempty"`
	Version     string `json:"version,omitempty"`
	Scheme      string `json:"scheme"`
	Description string `json:"description,omitempty"`
	// Warnings say what the name lost on its way to the slug; [] when
	// nothing was lost or the document is invalid.
	Warnings []string         `json:"warnings"`
	Error    *validationError `json:"error,omitempty"`
}

type validationError struct {
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

func (v *validation) problem() string {
	if v.Error.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", v.File, v.Error.Line, v.Error.Message)
	}
	return fmt.Sprintf("%s: %s", v.File, v.Error.Message)
}

// validateDocument parses content as the registry would.
func validateDocument(file string, content []byte, name, description string) *validation {
	v := &validation{File: file, Warnings: []string{}}
	fileName := ""
	if file != "-" {
		fileName = filepath.Base(file)
	}
	pack, err := packfmt.Parse(content, packfmt.Options{
		// The default limit is the registry's default, so a file that
		// passes here also fits a server that kept it.
		Name: name, Description: description, FileName: fileName,
	})
	if err != nil {
		v.Error = &validationError{Message: err.Error()}
		var perr *packfmt.Error
		if errors.As(err, &perr) {
			v.Error = &validationError{Line: perr.Line, Message: perr.Message}
		}
		return v
	}
	v.Valid = true
	v.Name, v.Slug, v.Version, v.Scheme, v.Description = pack.Name, pack.Slug, pack.Version, pack.Scheme, pack.Description
	if pack.Warnings != nil {
		v.Warnings = pack.Warnings
	}
	return v
}

func runValidate(_ context.Context, opts *validateOptions) error {
	if err := checkStdinOnce(opts.Files); err != nil {
		return err
	}
	results := make([]*validation, 0, len(opts.Files))
	invalid := 0
	for _, file := range opts.Files {
		content, err := readDocument(opts.IO, file)
		if err != nil {
			return err
		}
		v := validateDocument(file, content, "", "")
		if !v.Valid {
			invalid++
			opts.IO.info("%s", v.problem())
		}
		printWarnings(opts.IO, file, v.Warnings)
		results = append(results, v)
	}
	if opts.JSON {
		if err := exportJSON(opts.IO.Out, results); err != nil {
			return err
		}
	} else if err := printValidations(opts.IO.Out, results); err != nil {
		return err
	}
	if invalid > 0 {
		return &silentError{code: exitError}
	}
	return nil
}

// printValidations prints the valid documents as a table.
func printValidations(w io.Writer, results []*validation) error {
	t := newTable(w)
	header := false
	for _, v := range results {
		if !v.Valid {
			continue
		}
		if !header {
			fmt.Fprintln(t, "FILE\tNAME\tSLUG\tVERSION\tSCHEME")
			header = true
		}
		writeRow(t, v.File, v.Name, v.Slug, v.Version, orDash(v.Scheme))
	}
	return t.Flush()
}

// readDocument reads a file, or standard input for "-".
func readDocument(ios *iostreams, file string) ([]byte, error) {
	if file == "-" {
		return io.ReadAll(ios.In)
	}
	data, err := os.ReadFile(file)
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return nil, fmt.Errorf("reading %s: %w", file, pathErr.Err)
	}
	return data, err
}

// checkStdinOnce refuses "-" given twice: standard input can be read once.
func checkStdinOnce(files []string) error {
	seen := false
	for _, f := range files {
		if f == "-" {
			if seen {
				return usageErrorf(`"-" (standard input) can be given only once`)
			}
			seen = true
		}
	}
	return nil
}

// printWarnings writes a document's warnings to standard error, one line
// each, escaped like all text that may come from a registry.
func printWarnings(ios *iostreams, file string, warnings []string) {
	for _, w := range warnings {
		ios.info("%s: warning: %s", file, w)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
