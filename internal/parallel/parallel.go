package parallel

import (
	"sync"
	"sync/atomic"
)

// For runs f(i) for every i in [0, n) on up to threads goroutines (the calling one among
// them), each i once, and returns when all have. With threads < 2 or n < 2 it runs them
// in order on the calling goroutine. f must write only outputs of its own task.
func For(n, threads int, f func(i int)) {
	_ = ForErr(n, threads, func(i int) error {
		f(i)
		return nil
	})
}

// ForErr is For where a task can fail: it returns the error of the lowest-numbered task
// that failed, nil if none did, so the error does not depend on the thread count. Tasks
// numbered after a failed one may be skipped.
func ForErr(n, threads int, f func(i int) error) error {
	if threads < 2 || n < 2 {
		for i := range n {
			if err := f(i); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		next   atomic.Int64
		failed atomic.Int64 // the lowest failed task + 1; 0: none
		mu     sync.Mutex
		errs   = map[int]error{}
		wg     sync.WaitGroup
	)
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			if lo := failed.Load(); lo > 0 && int64(i) >= lo {
				return // a lower task failed: this one's outcome cannot matter
			}
			if err := f(i); err != nil {
				mu.Lock()
				errs[i] = err
				if lo := failed.Load(); lo == 0 || int64(i)+1 < lo {
					failed.Store(int64(i) + 1)
				}
				mu.Unlock()
			}
		}
	}
	for range min(threads, n) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
	if lo := failed.Load(); lo > 0 {
		return errs[int(lo)-1]
	}
	return nil
}
