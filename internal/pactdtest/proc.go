package pactdtest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
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

// CPUTime is the processor time (user and system) process pid has used,
// or 0 when it cannot be read: /proc/PID/stat counts it in the kernel's
// USER_HZ ticks, 100 a second on Linux.
func CPUTime(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces and parentheses:
	// fields are counted after the last ")" (utime and stime are the
	// 14th and 15th fields, the 12th and 13th after it).
	end := bytes.LastIndexByte(raw, ')')
	if end < 0 {
		return 0
	}
	fields := strings.Fields(string(raw[end+1:]))
	if len(fields) < 13 {
		return 0
	}
	user, _ := strconv.ParseInt(fields[11], 10, 64)
	system, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(user+system) * time.Second / 100
}

// CPUTime is the processor time the running pactd has used.
func (s *Server) CPUTime() time.Duration { return CPUTime(s.PID()) }

// RSSMiB is the running pactd's resident set now, in MiB.
func (s *Server) RSSMiB() float64 { return float64(RSSKiB(s.PID())) / 1024 }
