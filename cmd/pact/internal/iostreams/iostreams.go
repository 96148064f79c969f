package iostreams

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/pact-registry/pact/cmd/pact/internal/text"
)

// iostreams is where a command reads and writes. Data goes to Out, messages
// to ErrOut, so `pact list --json | jq` sees only data.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	StdinTTY  bool
	StdoutTTY bool
	StderrTTY bool
	Color     bool
	// width is the terminal's width in columns when stdout is one, else 0.
	width func() int
	// readSecret reads a line from the terminal without echo.
	readSecret func() ([]byte, error)
	// StopClock stops the command's --timeout clock while pact waits for
	// the user, until the returned function is called (nil: no clock).
	StopClock func() (restart func())
}

// UserTurn stops the command's clock until the returned function is
// called: the time the user takes to answer is not the registry's.
func (s *IOStreams) UserTurn() (restart func()) {
	if s.StopClock == nil {
		return func() {}
	}
	return s.StopClock()
}

// newSystemIO wires the process's standard streams.
func System() *IOStreams {
	stdinFd := int(os.Stdin.Fd())
	ios := &IOStreams{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		StdinTTY:  term.IsTerminal(stdinFd),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		readSecret: func() ([]byte, error) {
			return term.ReadPassword(stdinFd)
		},
		width: func() int {
			w, _, err := term.GetSize(int(os.Stdout.Fd()))
			if err != nil {
				return 0
			}
			return w
		},
	}
	return ios
}

// ColorWanted (asked by mainRun, which reads the environment) follows https://no-color.org: colour only on a terminal,
// never when NO_COLOR is set to anything or TERM is dumb.
func ColorWanted(isTerminal bool, getenv func(string) string) bool {
	return isTerminal && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// Test returns streams over buffers, as a non-terminal.
func Test(stdin string) (ios *IOStreams, stdout, stderr *bytes.Buffer) {
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{
		In:     strings.NewReader(stdin),
		Out:    stdout,
		ErrOut: stderr,
		readSecret: func() ([]byte, error) {
			return nil, errors.New("no terminal")
		},
	}, stdout, stderr
}

// PromptSecret asks for a secret on the terminal without echoing it.
// Without a terminal on stdin it fails with noTerminal, which should say
// what to do instead.
func (s *IOStreams) PromptSecret(prompt string, noTerminal error) (string, error) {
	if !s.StdinTTY {
		return "", noTerminal
	}
	fmt.Fprint(s.ErrOut, prompt)
	restart := s.UserTurn()
	secret, err := s.readSecret()
	restart()
	fmt.Fprintln(s.ErrOut)
	if err != nil {
		return "", fmt.Errorf("reading from the terminal: %w", err)
	}
	return string(secret), nil
}

// Success prints a message on stderr, with a green check on colour
// terminals. The format is pact's own; the values in args are shown through
// text.Safe, as with info.
func (s *IOStreams) Success(format string, args ...any) {
	mark := "✓"
	if s.Color {
		mark = "\x1b[32m✓\x1b[0m"
	}
	fmt.Fprintf(s.ErrOut, mark+" "+format+"\n", text.SafeArgs(args)...)
}

// Info prints a message on stderr.
func (s *IOStreams) Info(format string, args ...any) {
	fmt.Fprintf(s.ErrOut, format+"\n", text.SafeArgs(args)...)
}

// TerminalWidth is stdout's width in columns on a terminal; 0 when stdout
// is not one (a pipe, a file) or its size is unknown.
func (s *IOStreams) TerminalWidth() int {
	if !s.StdoutTTY || s.width == nil {
		return 0
	}
	return s.width()
}

// ErrorPrefix is how the final error line starts.
func (s *IOStreams) ErrorPrefix() string {
	if s.Color {
		return "\x1b[31merror:\x1b[0m "
	}
	return "error: "
}

// ProgressLine is one line of stderr a long command keeps rewriting on a
// terminal ("publishing 2/6: widget.pact.md"); it writes nothing anywhere
// else. A nil *ProgressLine does nothing.
type ProgressLine struct {
	w     io.Writer
	shown bool
}

// NewProgress returns a progress line on a terminal's stderr, else nil.
func (s *IOStreams) NewProgress() *ProgressLine {
	if !s.StderrTTY {
		return nil
	}
	return &ProgressLine{w: s.ErrOut}
}

func (p *ProgressLine) Show(format string, args ...any) {
	if p == nil {
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[K"+format, text.SafeArgs(args)...)
	p.shown = true
}

// Clear erases the line, before anything else is printed.
func (p *ProgressLine) Clear() {
	if p == nil || !p.shown {
		return
	}
	fmt.Fprint(p.w, "\r\x1b[K")
	p.shown = false
}
