package pactdtest

import (
	"fmt"
	"os"
	"time"
)

// Signal sends sig to the running pactd (SIGTERM to test draining, SIGKILL
// to test crash safety).
func (s *Server) Signal(sig os.Signal) error { return s.cmd.Process.Signal(sig) }

// Wait waits up to timeout for pactd to exit, and reports a non-zero exit.
func (s *Server) Wait(timeout time.Duration) error {
	select {
	case <-s.done:
	case <-time.After(timeout):
		return fmt.Errorf("pactd still running after %s", timeout)
	}
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		return fmt.Errorf("pactd exited with code %d", code)
	}
	return nil
}
