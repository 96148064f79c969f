package cmdutil

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultTimeout bounds a command when neither --timeout nor PACT_TIMEOUT
// does: far more than any command's own work takes, short enough that a
// registry that accepts connections and never answers does not hold a
// script for minutes. A variable so a test can shorten it.
var DefaultTimeout = time.Minute

// waitingNotice is how long a request waits for its answer before pact
// says on stderr that it is waiting, and for which registry.
const waitingNotice = 3 * time.Second

// errTimeSpent is the cause of a command's context cancelled by its budget.
var errTimeSpent = errors.New("the command's time is spent")

// budget is the time --timeout (or the default) gives a command: the time
// pact spends on its own work and on registries, not the time it waits
// for the user (a question on the terminal, a login approved in the
// browser), so a slow answer to "[y/N]" does not end the command.
type budget struct {
	limit time.Duration
	// isDefault says no --timeout or PACT_TIMEOUT set it.
	isDefault bool
	cancel    context.CancelCauseFunc

	mu     sync.Mutex
	left   time.Duration // at since
	since  time.Time     // when the running stretch began
	timer  *time.Timer   // nil while paused
	paused int           // nested pauses
}

// newBudget starts a budget of d on a context derived from parent.
func newBudget(parent context.Context, d time.Duration, isDefault bool) (context.Context, *budget) {
	ctx, cancel := context.WithCancelCause(parent)
	b := &budget{limit: d, isDefault: isDefault, cancel: cancel, left: d, since: time.Now()}
	b.timer = time.AfterFunc(d, b.expire)
	return &budgetContext{Context: ctx, b: b}, b
}

func (b *budget) expire() { b.cancel(errTimeSpent) }

// Pause stops the clock until the returned resume is called; a nil budget
// does nothing.
func (b *budget) Pause() (resume func()) {
	if b == nil {
		return func() {}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.paused == 0 && b.timer != nil {
		if b.timer.Stop() {
			b.left -= time.Since(b.since)
		} else {
			b.left = 0 // it fired already
		}
		b.timer = nil
	}
	b.paused++
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.paused--
			if b.paused == 0 && b.left > 0 {
				b.since = time.Now()
				b.timer = time.AfterFunc(b.left, b.expire)
			}
		})
	}
}

// Stop releases the budget's timer and context.
func (b *budget) Stop() {
	if b == nil {
		return
	}
	b.mu.Lock()
	if b.timer != nil {
		b.timer.Stop()
	}
	b.mu.Unlock()
	b.cancel(context.Canceled)
}

// deadline is when the budget runs out if the clock runs on; none while
// paused.
func (b *budget) deadline() (time.Time, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.timer == nil {
		return time.Time{}, false
	}
	return b.since.Add(b.left), true
}

// budgetContext is the budget's context: it tells the client how much time
// is left (Deadline), so that it does not start a wait it cannot finish.
type budgetContext struct {
	context.Context
	b *budget
}

func (c *budgetContext) Deadline() (time.Time, bool) {
	if d, ok := c.b.deadline(); ok {
		if parent, ok := c.Context.Deadline(); ok && parent.Before(d) {
			return parent, true
		}
		return d, true
	}
	return c.Context.Deadline()
}

// spent reports whether err ended the command because its budget ran out
// (a request cut off, a context's error passed up).
func (b *budget) spent(ctx context.Context, err error) bool {
	if b == nil || ctx == nil || !errors.Is(context.Cause(ctx), errTimeSpent) {
		return false
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// parseTimeout reads --timeout: a duration ("30s", "2m"), or whole seconds;
// "" and "0" mean no bound.
func parseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		if secs, aerr := strconv.Atoi(s); aerr == nil {
			d, err = time.Duration(secs)*time.Second, nil
		}
	}
	if err != nil || d < 0 {
		return 0, UsageErrorf("--timeout (or PACT_TIMEOUT) %q is not a duration such as 30s or 2m", s)
	}
	return d, nil
}
