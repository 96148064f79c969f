package main

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// logBuffer batches log lines into few writes: one write system call per
// request was the largest cost left on raw GETs (BENCHMARKS.md). Lines
// reach the output within the flush interval, and all of them at Close.
type logBuffer struct {
	mu   sync.Mutex
	w    *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

func newLogBuffer(out io.Writer, interval time.Duration) *logBuffer {
	b := &logBuffer{w: bufio.NewWriterSize(out, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				b.flush()
			case <-b.stop:
				return
			}
		}
	}()
	return b
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Write(p)
}

func (b *logBuffer) flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	_ = b.w.Flush()
}

// Close stops the flusher and writes out what is buffered.
func (b *logBuffer) Close() error {
	close(b.stop)
	<-b.done
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Flush()
}
