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
// a deep list page or a read from the database by about a tenth, for about
// 20 MB more resident memory (docs/operations.md, "Memory").
const defaultGCPercent = 200

// tuneGC applies defaultGCPercent unless GOGC is set, which Go's runtime
// has then already applied.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(defaultGCPercent)
	}
}
