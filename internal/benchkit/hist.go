package benchkit

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

// Histogram is a log-linear latency histogram in microseconds, in the spirit of
// HdrHistogram: values below 2^subBits are counted exactly; above, every
// power-of-two range is split into 2^subBits equal buckets, so a bucket is at
// most 1/2^subBits (about 1.6%) of its value wide. Record is lock-free.
type Histogram struct {
	counts [histBuckets]atomic.Int64
	n      atomic.Int64
	sum    atomic.Int64
	max    atomic.Int64
	min    atomic.Int64 // valid when n > 0; stored as value+1 so 0 means unset
}

const (
	subBits     = 6
	subCount    = 1 << subBits
	maxExp      = 40 // values up to 2^40 µs (~12 days), larger ones are clamped
	histBuckets = subCount + (maxExp-subBits)*subCount
)

func bucketOf(v int64) int {
	if v < subCount {
		return int(v)
	}
	k := bits.Len64(uint64(v)) - 1 // v in [2^k, 2^(k+1)), k >= subBits
	if k >= maxExp {
		return histBuckets - 1
	}
	shift := k - subBits
	sub := int(v>>shift) - subCount
	return subCount + shift*subCount + sub
}

// bucketRange returns the values [lo, hi] counted by bucket i.
func bucketRange(i int) (lo, hi int64) {
	if i < subCount {
		return int64(i), int64(i)
	}
	shift := (i - subCount) / subCount
	sub := (i - subCount) % subCount
	lo = int64(subCount+sub) << shift
	return lo, lo + (int64(1) << shift) - 1
}

// Record adds one duration (negative durations count as 0).
func (h *Histogram) Record(d time.Duration) {
	v := d.Microseconds()
	if v < 0 {
		v = 0
	}
	h.counts[bucketOf(v)].Add(1)
	h.n.Add(1)
	h.sum.Add(v)
	for {
		m := h.max.Load()
		if v <= m || h.max.CompareAndSwap(m, v) {
			break
		}
	}
	for {
		m := h.min.Load()
		if (m != 0 && v+1 >= m) || h.min.CompareAndSwap(m, v+1) {
			break
		}
	}
}

// Quantile returns the value at quantile q (0..1): the highest value of the
// bucket holding the ceil(q*n)-th smallest recording, capped at the maximum.
func (h *Histogram) Quantile(q float64) time.Duration {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(n)))
	if rank < 1 {
		rank = 1
	}
	var seen int64
	for i := range h.counts {
		seen += h.counts[i].Load()
		if seen >= rank {
			_, hi := bucketRange(i)
			return time.Duration(min(hi, h.max.Load())) * time.Microsecond
		}
	}
	return time.Duration(h.max.Load()) * time.Microsecond
}

// Summary is a histogram's digest, in milliseconds.
type Summary struct {
	Count  int64   `json:"count"`
	MinMs  float64 `json:"min_ms"`
	MeanMs float64 `json:"mean_ms"`
	P50Ms  float64 `json:"p50_ms"`
	P90Ms  float64 `json:"p90_ms"`
	P95Ms  float64 `json:"p95_ms"`
	P99Ms  float64 `json:"p99_ms"`
	P999Ms float64 `json:"p999_ms"`
	MaxMs  float64 `json:"max_ms"`
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func (h *Histogram) Summary() Summary {
	n := h.n.Load()
	if n == 0 {
		return Summary{}
	}
	return Summary{
		Count:  n,
		MinMs:  float64(h.min.Load()-1) / 1000,
		MeanMs: float64(h.sum.Load()) / float64(n) / 1000,
		P50Ms:  ms(h.Quantile(0.50)),
		P90Ms:  ms(h.Quantile(0.90)),
		P95Ms:  ms(h.Quantile(0.95)),
		P99Ms:  ms(h.Quantile(0.99)),
		P999Ms: ms(h.Quantile(0.999)),
		MaxMs:  float64(h.max.Load()) / 1000,
	}
}
