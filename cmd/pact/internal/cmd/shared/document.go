package shared

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/pkg/packfmt"
)

// Validation is the offline verdict on one document.
type Validation struct {
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

func (v *Validation) Problem() string {
	if v.Error.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", v.File, v.Error.Line, v.Error.Message)
	}
	return fmt.Sprintf("%s: %s", v.File, v.Error.Message)
}

// ValidateDocument parses content as the registry would.
func ValidateDocument(file string, content []byte, name, description string) *Validation {
	v := &Validation{File: file, Warnings: []string{}}
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

// ReadDocument reads a file, or standard input for "-".
func ReadDocument(ios *iostreams.IOStreams, file string) ([]byte, error) {
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

// CheckStdinOnce refuses "-" given twice: standard input can be read once.
func CheckStdinOnce(files []string) error {
	seen := false
	for _, f := range files {
		if f == "-" {
			if seen {
				return cmdutil.UsageErrorf(`"-" (standard input) can be given only once`)
			}
			seen = true
		}
	}
	return nil
}

// PrintWarnings writes a document's warnings to standard error, one line
// each, escaped like all text that may come from a registry.
func PrintWarnings(ios *iostreams.IOStreams, file string, warnings []string) {
	for _, w := range warnings {
		ios.Info("%s: warning: %s", file, w)
	}
}
