package ui

import (
	"math"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
)

// TestRatesLeaveOutIntervalsWhereACountFell: the rate is the growth over
// the intervals in which the counter did not fall (a prune or a purge
// lowers it), per minute of those intervals; too short a span gives none,
// and a queue no longer counted is forgotten.
func TestRatesLeaveOutIntervalsWhereACountFell(t *testing.T) {
	s := newRateSampler()
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(sec int, completed, failed int64) {
		s.add(t0.Add(time.Duration(sec)*time.Second), []driver.QueueCount{{Queue: "q", Completed: completed, Failed: failed}})
	}
	at(0, 100, 5)
	at(3, 130, 5)
	if r := s.rate("q"); r.OK {
		t.Fatalf("3 s of samples gave a rate: %+v", r)
	}
	at(10, 200, 6)  // +70 completed, +1 failed in 7 s
	at(30, 50, 2)   // a prune: both fell, the interval is left out
	at(60, 350, 10) // +300 and +8 in 30 s
	r := s.rate("q")
	// completed: (30 + 70 + 300) / (3 + 7 + 30 s); failed: (0 + 1 + 8) / 40 s.
	if !r.OK || math.Abs(r.Completed-400.0/40*60) > 1e-9 || math.Abs(r.Failed-9.0/40*60) > 1e-9 {
		t.Fatalf("rate %+v, want 600/min completed and 13.5/min failed", r)
	}
	at(60, 9999, 9999) // under a second after the last: dropped
	if r2 := s.rate("q"); r2 != r {
		t.Fatalf("a sample under a second after the last changed the rate: %+v", r2)
	}
	s.add(t0.Add(2*time.Minute), []driver.QueueCount{{Queue: "other"}})
	if r := s.rate("q"); r.OK {
		t.Fatalf("a queue no longer counted still has a rate: %+v", r)
	}
	// Samples older than the window go.
	for i := 0; i <= 20; i++ {
		s.add(t0.Add(time.Duration(i)*time.Minute), []driver.QueueCount{{Queue: "w", Completed: int64(i) * 60}})
	}
	if n := len(s.samples["w"]); n != 11 {
		t.Fatalf("%d samples kept over 20 minutes, want the 11 of the last 10 minutes", n)
	}
	if r := s.rate("w"); !r.OK || r.Completed != 60 {
		t.Fatalf("steady 60/min: %+v", r)
	}
}
