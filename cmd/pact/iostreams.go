package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// iostreams is where a command reads and writes. Data goes to Out, messages
// to ErrOut, so `pact list --json | jq` sees only data.
type iostreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY  bool
	stdoutTTY bool
	stderrTTY bool
	color     bool
	// width is the terminal's width in columns when stdout is one, else 0.
	width func() int
	// readSecret reads a line from the terminal without echo.
	readSecret func() ([]byte, error)
	// stopClock stops the command's --timeout clock while pact waits for
	// the user, until the returned function is called (nil: no clock).
	stopClock func() (restart func())
}

// userTurn stops the command's clock until the returned function is
// called: the time the user takes to answer is not the registry's.
func (s *iostreams) userTurn() (restart func()) {
	if s.stopClock == nil {
		return func() {}
	}
	return s.stopClock()
}

// newSystemIO wires the process's standard streams.
func newSystemIO() *iostreams {
	stdinFd := int(os.Stdin.Fd())
	ios := &iostreams{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		stdinTTY:  term.IsTerminal(stdinFd),
		stdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		stderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
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

// colorWanted (asked by mainRun, which reads the environment) follows https://no-color.org: colour only on a terminal,
// never when NO_COLOR is set to anything or TERM is dumb.
func colorWanted(isTerminal bool, getenv func(string) string) bool {
	return isTerminal && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// testIO returns streams over buffers, as a non-terminal.
func testIO(stdin string) (ios *iostreams, stdout, stderr *bytes.Buffer) {
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	return &iostreams{
		In:     strings.NewReader(stdin),
		Out:    stdout,
		ErrOut: stderr,
		readSecret: func() ([]byte, error) {
			return nil, errors.New("no terminal")
		},
	}, stdout, stderr
}

// promptSecret asks for a secret on the terminal without echoing it.
// Without a terminal on stdin it fails with noTerminal, which should say
// what to do instead.
func (s *iostreams) promptSecret(prompt string, noTerminal error) (string, error) {
	if !s.stdinTTY {
		return "", noTerminal
	}
	fmt.Fprint(s.ErrOut, prompt)
	restart := s.userTurn()
	secret, err := s.readSecret()
	restart()
	fmt.Fprintln(s.ErrOut)
	if err != nil {
		return "", fmt.Errorf("reading from the terminal: %w", err)
	}
	return string(secret), nil
}

// success prints a message on stderr, with a green check on colour
// terminals. The format is pact's own; the values in args are shown through
// safeText, as with info.
func (s *iostreams) success(format string, args ...any) {
	mark := "✓"
	if s.color {
		mark = "\x1b[32m✓\x1b[0m"
	}
	fmt.Fprintf(s.ErrOut, mark+" "+format+"\n", safeArgs(args)...)
}

// info prints a message on stderr.
func (s *iostreams) info(format string, args ...any) {
	fmt.Fprintf(s.ErrOut, format+"\n", safeArgs(args)...)
}

// terminalWidth is stdout's width in columns on a terminal; 0 when stdout
// is not one (a pipe, a file) or its size is unknown.
func (s *iostreams) terminalWidth() int {
	if !s.stdoutTTY || s.width == nil {
		return 0
	}
	return s.width()
}

// errorPrefix is how the final error line starts.
func (s *iostreams) errorPrefix() string {
	if s.color {
		return "\x1b[31merror:\x1b[0m "
	}
	return "error: "
}

// progressLine is one line of stderr a long command keeps rewriting on a
// terminal ("publishing 2/6: widget.pact.md"); it writes nothing anywhere
// else. A nil *progressLine does nothing.
type progressLine struct {
	w     io.Writer
	shown bool
}

// newProgress returns a progress line on a terminal's stderr, else nil.
func (s *iostreams) newProgress() *progressLine {
	if !s.stderrTTY {
		return nil
	}
	return &progressLine{w: s.ErrOut}
}

func (p *progressLine) show(format string, args ...any) {
	if p == nil {
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[K"+format, safeArgs(args)...)
	p.shown = true
}

// clear erases the line, before anything else is printed.
func (p *progressLine) clear() {
	if p == nil || !p.shown {
		return
	}
	fmt.Fprint(p.w, "\r\x1b[K")
	p.shown = false
}
