package benchkit

import (
	"math"
	"math/bits"
	"sync"
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
	return quantile(q, h.n.Load(), h.max.Load(), func(i int) int64 { return h.counts[i].Load() })
}

// quantile walks bucket counts (count(i) for bucket i; n recordings in all,
// the largest maxV µs) to the value at quantile q, as Histogram.Quantile says.
func quantile(q float64, n, maxV int64, count func(i int) int64) time.Duration {
	if n == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(n)))
	if rank < 1 {
		rank = 1
	}
	var seen int64
	for i := range histBuckets {
		seen += count(i)
		if seen >= rank {
			_, hi := bucketRange(i)
			return time.Duration(min(hi, maxV)) * time.Microsecond
		}
	}
	return time.Duration(maxV) * time.Microsecond
}

// reset empties h. Not safe while another goroutine records into h.
func (h *Histogram) reset() {
	for i := range h.counts {
		h.counts[i].Store(0)
	}
	h.n.Store(0)
	h.sum.Store(0)
	h.max.Store(0)
	h.min.Store(0)
}

// RollingHistogram holds the latencies recorded in the last whole seconds of
// a window, in bounded memory: a ring of one Histogram per second, a slot
// emptied when its second comes round again. Recorders of a second share a
// read lock (Histogram.Record is atomic); the first recording of a new second
// takes the write lock to empty its slot.
type RollingHistogram struct {
	mu    sync.RWMutex
	slots []rollingSlot
}

type rollingSlot struct {
	sec int64 // unix second the slot holds; guarded by mu (written under the write lock)
	h   Histogram
}

// NewRollingHistogram returns a histogram over the last window (rounded up to
// whole seconds, at least one), about 18 KB per second of window.
func NewRollingHistogram(window time.Duration) *RollingHistogram {
	n := max(int((window+time.Second-1)/time.Second), 1)
	r := &RollingHistogram{slots: make([]rollingSlot, n)}
	for i := range r.slots {
		r.slots[i].sec = math.MinInt64
	}
	return r
}

func (r *RollingHistogram) slot(sec int64) *rollingSlot {
	n := int64(len(r.slots))
	return &r.slots[((sec%n)+n)%n]
}

// Record adds d, recorded at time at. A recording older than the window is dropped.
func (r *RollingHistogram) Record(at time.Time, d time.Duration) {
	sec := at.Unix()
	r.mu.RLock()
	if s := r.slot(sec); s.sec == sec {
		s.h.Record(d)
		r.mu.RUnlock()
		return
	}
	r.mu.RUnlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.slot(sec)
	if s.sec > sec {
		return // its slot already holds a later second
	}
	if s.sec < sec {
		s.h.reset()
		s.sec = sec
	}
	s.h.Record(d)
}

// Quantiles returns the values at the quantiles qs of what was recorded in the
// window's seconds up to now's, and how many recordings that is.
func (r *RollingHistogram) Quantiles(now time.Time, qs ...float64) ([]time.Duration, int64) {
	newest := now.Unix()
	oldest := newest - int64(len(r.slots)) + 1
	var counts [histBuckets]int64
	var n, maxV int64
	r.mu.RLock()
	for i := range r.slots {
		s := &r.slots[i]
		if s.sec < oldest || s.sec > newest {
			continue
		}
		for b := range counts {
			c := s.h.counts[b].Load()
			counts[b] += c
			n += c // not s.h.n: a concurrent Record may have counted its bucket and not yet n
		}
		maxV = max(maxV, s.h.max.Load())
	}
	r.mu.RUnlock()
	out := make([]time.Duration, len(qs))
	for i, q := range qs {
		out[i] = quantile(q, n, maxV, func(b int) int64 { return counts[b] })
	}
	return out, n
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
