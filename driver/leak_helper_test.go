package driver_test

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// goroutineBaseline records runtime.NumGoroutine() before a test creates its
// pool and client. Only use it in tests that do not call t.Parallel: while a
// sequential test runs, the parallel tests of the package are paused, so the
// count is the test's own.
type goroutineBaseline struct {
	n int
}

func baselineGoroutines() goroutineBaseline {
	return goroutineBaseline{n: runtime.NumGoroutine()}
}

// check fails the test when, after a settle period of up to 10s (goroutines
// that were told to exit may still be on their way out), more goroutines run
// than at the baseline. On failure it prints every goroutine's stack.
func (b goroutineBaseline) check(t *testing.T, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= b.n {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%s: %d goroutines still running 10s later, %d before the client existed; stacks:\n%s",
				what, n, b.n, filterStacks(string(buf)))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// filterStacks drops the testing framework's own goroutines from a dump.
func filterStacks(dump string) string {
	var keep []string
	for _, g := range strings.Split(dump, "\n\n") {
		if strings.Contains(g, "testing.(*T).Run") && !strings.Contains(g, "driver_test.") ||
			strings.Contains(g, "testing.runTests") || strings.Contains(g, "testing.(*M).") {
			continue
		}
		keep = append(keep, g)
	}
	return strings.Join(keep, "\n\n")
}
