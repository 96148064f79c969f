package main

import (
	"os"
	"runtime/debug"
)

// defaultGCPercent is the garbage collector's target (GOGC) when the
// operator has not set GOGC: the heap may grow to three times what is live
// between collections instead of twice. pactd's live heap is small and
// bounded (the read cache, --db-read-cache-bytes, is most of it), and its
// hot paths allocate per request; collecting half as often cut the CPU of
// a deep list page or a read from the database by about a tenth
// (docs/operations.md, "Memory").
const defaultGCPercent = 200

// memoryHeadroom is what the default soft memory limit (GOMEMLIMIT)
// allows beyond the read cache: the collector runs sooner as the heap
// nears cache + headroom, so GOGC=200 costs no more memory than the
// runtime's default under load on a large cache (at 1,000,000 packages
// with a 36 MB cache the bench measured 250 MB resident without a limit,
// 134 MB with it, at the same CPU).
const memoryHeadroom = 64 << 20

// tuneGC applies defaultGCPercent unless GOGC is set, and a soft memory
// limit of cacheBytes + memoryHeadroom unless GOMEMLIMIT is set (Go's
// runtime has then applied them already).
func tuneGC(cacheBytes int64) {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(defaultGCPercent)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(max(cacheBytes, 0) + memoryHeadroom)
	}
}
