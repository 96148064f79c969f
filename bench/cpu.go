package main

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// CPU per request: the CPU time a server's processes spent during a row,
// over the 200s they answered. Unlike requests per second it hardly
// depends on what else runs on the machine, which is shared.

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times (100 on Linux).
const clockTicks = 100

// processCPU is the user and system CPU time of pid and its children
// (nginx's workers), or 0 when /proc cannot tell.
func processCPU(pid int) time.Duration {
	var total time.Duration
	for _, p := range append([]int{pid}, childrenOf(pid)...) {
		total += ownCPU(p)
	}
	return total
}

// ownCPU is the user and system CPU time of pid alone, or 0 when /proc
// cannot tell.
func ownCPU(pid int) time.Duration {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name is in parentheses and may hold spaces: fields are
	// counted after the last ')'.
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / clockTicks
}

func childrenOf(pid int) []int {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(raw)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}
