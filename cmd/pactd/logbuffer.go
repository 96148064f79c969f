package main

import (
	"io"
	"sync"
	"time"
)

// logBuffer batches log lines into few writes: one write system call per
// request was the largest cost left on raw GETs (BENCHMARKS.md). Lines
// reach the output within the flush interval, and all of them at Close.
//
// A request never writes to the output itself: it appends its line to the
// current buffer, and one goroutine swaps the buffer out and writes it
// while requests go on appending to the other. A slow output (a disk busy
// writing back, a journal that reads late) used to stall every request
// that logged while the shared buffer was being written, outside the
// duration the request line reports. Only when the output falls
// logBufferMax behind do requests wait for it, so memory stays bounded.
type logBuffer struct {
	mu     sync.Mutex
	room   *sync.Cond // signalled when a buffer was swapped out
	cur    []byte     // lines not yet handed to the writer
	spare  []byte     // the other buffer, empty
	out    io.Writer
	kick   chan struct{}
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

const (
	// logBufferSize is how much is appended before the writer is woken
	// ahead of the interval.
	logBufferSize = 64 << 10
	// logBufferMax is how far the output may fall behind before a request
	// waits for it.
	logBufferMax = 4 << 20
)

func newLogBuffer(out io.Writer, interval time.Duration) *logBuffer {
	b := &logBuffer{out: out, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		cur: make([]byte, 0, logBufferSize), spare: make([]byte, 0, logBufferSize)}
	b.room = sync.NewCond(&b.mu)
	go func() {
		defer close(b.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
			case <-b.kick:
			case <-b.stop:
				b.writeOut()
				return
			}
			b.writeOut()
		}
	}()
	return b
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	for len(b.cur) > 0 && len(b.cur)+len(p) > logBufferMax && !b.closed {
		b.room.Wait()
	}
	b.cur = append(b.cur, p...)
	full := len(b.cur) >= logBufferSize
	b.mu.Unlock()
	if full {
		select {
		case b.kick <- struct{}{}:
		default: // already woken
		}
	}
	return len(p), nil
}

// writeOut hands the current buffer's lines to the output; only the
// writer goroutine calls it, so lines go out in the order they came.
func (b *logBuffer) writeOut() {
	b.mu.Lock()
	lines := b.cur
	b.cur, b.spare = b.spare[:0], nil
	b.room.Broadcast()
	b.mu.Unlock()
	if len(lines) > 0 {
		_, _ = b.out.Write(lines)
	}
	if cap(lines) > logBufferMax/4 {
		lines = make([]byte, 0, logBufferSize) // one burst does not stay resident
	}
	b.mu.Lock()
	b.spare = lines[:0]
	b.mu.Unlock()
}

// Close stops the writer after it wrote out everything buffered.
func (b *logBuffer) Close() error {
	b.mu.Lock()
	b.closed = true
	b.room.Broadcast()
	b.mu.Unlock()
	close(b.stop)
	<-b.done
	// Lines written after the last swap and before Close returned.
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.cur) > 0 {
		_, err := b.out.Write(b.cur)
		b.cur = b.cur[:0]
		return err
	}
	return nil
}
