package cmdutil

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
)

// The questions a command asks before it changes something, and what it
// does without a terminal to ask them on.

// Confirmed asks a yes/no question on the terminal; without a terminal on
// stdin and stderr it refuses (exit 2) and says to pass --yes. Anything but
// y or yes is no.
func Confirmed(s *iostreams.IOStreams, question, what string) (bool, error) {
	if err := CanConfirm(s, false, what); err != nil {
		return false, err
	}
	fmt.Fprintf(s.ErrOut, "%s [y/N] ", text.Safe(question))
	restart := s.UserTurn()
	line, err := bufio.NewReader(io.LimitReader(s.In, 1024)).ReadString('\n')
	restart()
	if err != nil && line == "" {
		fmt.Fprintln(s.ErrOut)
		return false, nil
	}
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "y" || answer == "yes", nil
}

// Cancelled ends a command whose question was answered no: it says so,
// plainly (declining is no error), and exits 1 so that a script sees
// that nothing was done.
func Cancelled(s *iostreams.IOStreams) error {
	fmt.Fprintln(s.ErrOut, "cancelled")
	return &SilentError{Code: ExitError}
}

// CanConfirm fails (exit 2) when a command that needs confirmation has
// neither --yes nor a terminal to ask on; commands check it before any
// request.
func CanConfirm(s *iostreams.IOStreams, yes bool, what string) error {
	if !yes && (!s.StdinTTY || !s.StderrTTY) {
		return UsageErrorf("%s needs confirmation and there is no terminal to ask: pass --yes", what)
	}
	return nil
}
