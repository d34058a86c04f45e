package detector

import (
	"errors"
	"sync"
)

// ErrClosed reports a call on a Model after Close.
var ErrClosed = errors.New("udocc: the model is closed")

// inflight counts the calls that use a Model's networks (Score, Explain, Save and their
// kin), so that Close waits for those in flight before it frees the networks, and the
// calls made once Close has begun fail with ErrClosed instead of reading freed memory.
type inflight struct {
	mu      sync.Mutex
	n       int
	closing bool
	idle    chan struct{} // closed when n drops to 0 after closing began
}

// enter counts a call in, or returns ErrClosed once Close has begun.
func (f *inflight) enter() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closing {
		return ErrClosed
	}
	f.n++
	return nil
}

// leave counts a call out.
func (f *inflight) leave() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n--
	if f.n == 0 && f.idle != nil {
		close(f.idle)
		f.idle = nil
	}
}

// close refuses new calls and waits for those in flight; false where an earlier close
// did so already.
func (f *inflight) close() bool {
	f.mu.Lock()
	if f.closing {
		f.mu.Unlock()
		return false
	}
	f.closing = true
	var wait chan struct{}
	if f.n > 0 {
		f.idle = make(chan struct{})
		wait = f.idle
	}
	f.mu.Unlock()
	if wait != nil {
		<-wait
	}
	return true
}
