package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestLogBufferDeliversEveryLine(t *testing.T) {
	out := &lockedBuffer{}
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
