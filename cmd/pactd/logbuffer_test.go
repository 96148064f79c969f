package main

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/syncbuf"
)

func TestLogBufferDeliversEveryLine(t *testing.T) {
	out := &syncbuf.Buffer{}
	logs := newLogBuffer(out, 10*time.Millisecond)
	logs.Write([]byte("first\n"))
	deadline := time.Now().Add(5 * time.Second)
	for out.String() != "first\n" && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if out.String() != "first\n" {
		t.Fatalf("a line did not reach the output by the flush interval: %q", out.String())
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 1000; j++ {
				logs.Write([]byte("line\n"))
			}
		}()
	}
	wg.Wait()
	if err := logs.Close(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "line\n"); n != 8000 {
		t.Errorf("%d lines written after Close, want 8000", n)
	}
}

// stalledWriter blocks every Write until released, as a disk busy writing
// back or a journal that reads late does.
type stalledWriter struct {
	release chan struct{}
	out     syncbuf.Buffer
}

func (s *stalledWriter) Write(p []byte) (int, error) {
	<-s.release
	return s.out.Write(p)
}

// A stalled output does not stall the requests that log: their lines wait
// in memory (up to logBufferMax) and go out in order once it moves.
func TestLogBufferWritesDoNotWaitForAStalledOutput(t *testing.T) {
	out := &stalledWriter{release: make(chan struct{})}
	logs := newLogBuffer(out, time.Millisecond)
	line := strings.Repeat("x", 99) + "\n"
	lines := logBufferSize / len(line) * 8 // several buffers' worth, well under logBufferMax
	start := time.Now()
	var want strings.Builder
	for i := range lines {
		l := strconv.Itoa(i) + line
		want.WriteString(l)
		logs.Write([]byte(l))
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("%d lines took %v to log while the output was stalled", lines, took)
	}
	close(out.release)
	if err := logs.Close(); err != nil {
		t.Fatal(err)
	}
	if got := out.out.String(); got != want.String() {
		t.Fatalf("the output holds %d bytes, want %d, in order", len(got), want.Len())
	}
}

// Past logBufferMax behind, a request waits for the output instead of
// growing memory without bound.
func TestLogBufferBoundsWhatAStalledOutputHolds(t *testing.T) {
	out := &stalledWriter{release: make(chan struct{})}
	logs := newLogBuffer(out, time.Millisecond)
	line := []byte(strings.Repeat("y", 1023) + "\n")
	wrote := make(chan int)
	go func() {
		n := 0
		for range 3 * logBufferMax / len(line) {
			logs.Write(line)
			n++
		}
		wrote <- n
	}()
	select {
	case n := <-wrote:
		t.Fatalf("%d lines (%d bytes) were accepted while the output was stalled", n, n*len(line))
	case <-time.After(500 * time.Millisecond):
	}
	close(out.release)
	n := <-wrote
	if err := logs.Close(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.out.String(), "\n"); got != n {
		t.Errorf("%d lines reached the output, want %d", got, n)
	}
}
