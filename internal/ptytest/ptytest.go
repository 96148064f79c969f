//go:build linux

// Package ptytest runs a program on a real pseudo-terminal, so tests can
// see what a person at a terminal sees: stdin, stdout and stderr are all
// the terminal, whose width the test chooses.
package ptytest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// Open returns the controlling side of a new pseudo-terminal and its
// terminal side, set to cols columns and 24 rows.
func Open(cols int) (ctrl, tty *os.File, err error) {
	ctrl, err = os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("opening /dev/ptmx: %w", err)
	}
	var n uint32
	if err := ioctl(ctrl, syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); err != nil {
		ctrl.Close()
		return nil, nil, fmt.Errorf("TIOCGPTN: %w", err)
	}
	var unlock int32
	if err := ioctl(ctrl, syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); err != nil {
		ctrl.Close()
		return nil, nil, fmt.Errorf("TIOCSPTLCK: %w", err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		ctrl.Close()
		return nil, nil, err
	}
	size := struct{ rows, cols, x, y uint16 }{rows: 24, cols: uint16(cols)}
	if err := ioctl(tty, syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&size))); err != nil {
		ctrl.Close()
		tty.Close()
		return nil, nil, fmt.Errorf("TIOCSWINSZ: %w", err)
	}
	return ctrl, tty, nil
}

func ioctl(f *os.File, req, arg uintptr) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, arg); errno != 0 {
		return errno
	}
	return nil
}

// Run runs name with args on a new terminal of cols columns, types input
// into it (then an end of file), and copies everything the terminal shows
// to out, with the terminal's "\r\n" line ends made "\n". It returns the
// program's exit code.
//
// The input is typed at once, or, when after is not empty, once the
// terminal has shown after (a question's end, say), as a person answers a
// question: the terminal echoes what is typed where its cursor is, so an
// answer typed before the question is shown above it. Without after, what
// the terminal shows depends on which came first. A program that waits 30
// seconds without showing after gets its input then.
func Run(cols int, input, after string, out io.Writer, name string, args ...string) (int, error) {
	ctrl, tty, err := Open(cols)
	if err != nil {
		return 0, err
	}
	defer ctrl.Close()
	cmd := exec.Command(name, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		tty.Close()
		return 0, err
	}
	tty.Close() // the program holds the terminal now
	shownAfter := make(chan struct{})
	if after == "" {
		close(shownAfter)
	}
	go func() {
		select {
		case <-shownAfter:
		case <-time.After(30 * time.Second):
		}
		if input != "" {
			io.WriteString(ctrl, input)
		}
		ctrl.Write([]byte{4}) // end of file, for a program that reads on
	}()
	var shown strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := ctrl.Read(buf)
		shown.Write(buf[:n])
		if after != "" && strings.Contains(shown.String(), after) {
			close(shownAfter)
			after = ""
		}
		if err != nil { // EIO once the program has closed the terminal
			break
		}
	}
	if after != "" { // never shown: the typist need not wait on
		close(shownAfter)
	}
	err = cmd.Wait()
	io.WriteString(out, strings.ReplaceAll(shown.String(), "\r\n", "\n"))
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ExitCode(), nil
	}
	return 0, err
}

// Main is a command for test scripts: "ptyrun PROGRAM ARGS..." runs the
// program on a terminal of $PTY_COLS columns (default 80), typing its own
// standard input into it (once the terminal has shown $PTY_ANSWER_AFTER,
// when set: Run), prints what the terminal showed and exits as the program
// did.
func Main() int {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: ptyrun PROGRAM [ARGS...]")
		return 2
	}
	cols := 80
	if v, err := strconv.Atoi(os.Getenv("PTY_COLS")); err == nil && v > 0 {
		cols = v
	}
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	code, err := Run(cols, string(input), os.Getenv("PTY_ANSWER_AFTER"), os.Stdout, os.Args[1], os.Args[2:]...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ptyrun:", err)
		return 2
	}
	return code
}
