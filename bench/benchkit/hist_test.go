package benchkit

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestBucketsCoverEveryValueOnce(t *testing.T) {
	prevHi := int64(-1)
	for i := 0; i < histBuckets; i++ {
		lo, hi := bucketRange(i)
		if lo != prevHi+1 || hi < lo {
			t.Fatalf("bucket %d = [%d, %d], previous ended at %d", i, lo, hi, prevHi)
		}
		if bucketOf(lo) != i || bucketOf(hi) != i {
			t.Fatalf("bucket %d = [%d, %d] but bucketOf gives %d, %d", i, lo, hi, bucketOf(lo), bucketOf(hi))
		}
		if lo >= subCount && float64(hi-lo+1)/float64(lo) > 1.0/subCount+1e-9 {
			t.Fatalf("bucket %d = [%d, %d] wider than 1/%d of its value", i, lo, hi, subCount)
		}
		prevHi = hi
	}
}

func TestQuantilesMatchSortedSample(t *testing.T) {
	var h Histogram
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]int64, 100000)
	for i := range vals {
		vals[i] = int64(r.ExpFloat64() * 5000) // µs, mean 5 ms
		h.Record(time.Duration(vals[i]) * time.Microsecond)
	}
	slices.Sort(vals)
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		want := vals[int(q*float64(len(vals)))-1]
		got := h.Quantile(q).Microseconds()
		if got < want || float64(got-want) > float64(want)/subCount+1 {
			t.Errorf("q%.3f = %d µs, exact %d µs", q, got, want)
		}
	}
	s := h.Summary()
	if s.Count != int64(len(vals)) || s.MaxMs != float64(vals[len(vals)-1])/1000 || s.MinMs != float64(vals[0])/1000 {
		t.Errorf("summary %+v, want count %d min %d max %d", s, len(vals), vals[0], vals[len(vals)-1])
	}
}

// TestRollingHistogramForgetsOldSeconds: a rolling histogram answers from the
// last window's seconds only, and a slot reused for a later second holds that
// second alone.
func TestRollingHistogramForgetsOldSeconds(t *testing.T) {
	r := NewRollingHistogram(3 * time.Second)
	t0 := time.Unix(1_700_000_000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	for i := range 60 {
		r.Record(at(0.5), time.Duration(i+1)*time.Microsecond) // 1..60 µs in second 0: exact buckets
	}
	r.Record(at(2.9), 500*time.Millisecond) // second 2

	qs, n := r.Quantiles(at(2.95), 0.5, 1)
	if n != 61 || qs[0] != 31*time.Microsecond || qs[1] != 500*time.Millisecond {
		t.Errorf("seconds 0..2: n %d, p50 %s, max %s; want 61, 31µs, 500ms", n, qs[0], qs[1])
	}
	// Second 3 falls out of the window's reach for second 0, which is no
	// longer counted, then reuses its slot.
	if qs, n := r.Quantiles(at(3.1), 0.5); n != 1 || qs[0] != 500*time.Millisecond {
		t.Errorf("seconds 1..3: n %d, p50 %s; want the 500ms recording alone", n, qs[0])
	}
	r.Record(at(3.2), 2*time.Microsecond)
	if qs, n := r.Quantiles(at(3.3), 0, 1); n != 2 || qs[0] != 2*time.Microsecond || qs[1] != 500*time.Millisecond {
		t.Errorf("after reuse: n %d, min %s, max %s; want 2, 2µs, 500ms", n, qs[0], qs[1])
	}
	r.Record(at(0.1), time.Hour) // older than its slot's second: dropped
	if _, n := r.Quantiles(at(3.3)); n != 2 {
		t.Errorf("a recording older than the window was kept: n %d", n)
	}
	if qs, n := r.Quantiles(at(10), 0.99); n != 0 || qs[0] != 0 {
		t.Errorf("an idle window: n %d, p99 %s; want 0, 0", n, qs[0])
	}
}

// TestRollingHistogramConcurrent: recorders crossing into new seconds while a
// reader asks for quantiles lose nothing of the current window (run with -race).
func TestRollingHistogramConcurrent(t *testing.T) {
	r := NewRollingHistogram(4 * time.Second)
	t0 := time.Unix(1_700_000_000, 0)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 4000 {
				r.Record(t0.Add(time.Duration(i)*time.Millisecond), time.Duration(g+1)*time.Microsecond)
				if i%500 == 0 {
					r.Quantiles(t0.Add(time.Duration(i)*time.Millisecond), 0.5)
				}
			}
		})
	}
	wg.Wait()
	if qs, n := r.Quantiles(t0.Add(3999*time.Millisecond), 0, 1); n != 8*4000 || qs[0] != time.Microsecond || qs[1] != 8*time.Microsecond {
		t.Errorf("n %d, min %s, max %s; want %d, 1µs, 8µs", n, qs[0], qs[1], 8*4000)
	}
}
