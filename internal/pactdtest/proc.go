package pactdtest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ResetPeakRSS starts a new peak-RSS window for process pid (Linux ≥ 4.0:
// writing 5 to clear_refs resets VmHWM). It reports whether the reset worked.
func ResetPeakRSS(pid int) bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) == nil
}

// PeakRSSKiB is process pid's resident-set high-water mark (VmHWM) in KiB,
// or 0 when it cannot be read.
func PeakRSSKiB(pid int) int64 { return procStatusKiB(pid, "VmHWM") }

// RSSKiB is process pid's current resident set (VmRSS) in KiB.
func RSSKiB(pid int) int64 { return procStatusKiB(pid, "VmRSS") }

func procStatusKiB(pid int, field string) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if ok && name == field {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// PID is the running pactd's process id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// PeakRSSMiB is the running pactd's peak resident set in MiB since it
// started or since the last ResetPeakRSS.
func (s *Server) PeakRSSMiB() float64 { return float64(PeakRSSKiB(s.PID())) / 1024 }

// ResetPeakRSS starts a new peak-RSS window for the running pactd.
func (s *Server) ResetPeakRSS() bool { return ResetPeakRSS(s.PID()) }
