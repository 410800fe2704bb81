package benchkit

import (
	"math/rand/v2"
	"slices"
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
