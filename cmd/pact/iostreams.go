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
	color     bool
	// readSecret reads a line from the terminal without echo.
	readSecret func() ([]byte, error)
}

// systemIO wires the process's standard streams.
func systemIO() *iostreams {
	stdinFd := int(os.Stdin.Fd())
	ios := &iostreams{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		stdinTTY:  term.IsTerminal(stdinFd),
		stdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		readSecret: func() ([]byte, error) {
			return term.ReadPassword(stdinFd)
		},
	}
	ios.color = colorWanted(term.IsTerminal(int(os.Stderr.Fd())), os.Getenv)
	return ios
}

// colorWanted follows https://no-color.org: colour only on a terminal,
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
	secret, err := s.readSecret()
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

// errorPrefix is how the final error line starts.
func (s *iostreams) errorPrefix() string {
	if s.color {
		return "\x1b[31merror:\x1b[0m "
	}
	return "error: "
}
