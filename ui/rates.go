package ui

import (
	"context"
	"sync"
	"time"

	"github.com/awa-queue/awa/driver"
)

// Rates are derived from the counters of awa.queue_counts, sampled by the
// handler (each queues page, and Handler.Sample): completed per minute is
// the growth of the completed count between samples over the time between
// them. The counts are of what the queue ring still holds, so they drop
// when a prune moves a slot to the archive or truncates it, and a failed
// count drops when a job is retried or purged: an interval over which a
// count fell says nothing about the rate and is left out of it, numerator
// and denominator. A rate needs samples spanning at least rateMinSpan in
// the last rateWindow; until then the page shows none.
const (
	rateWindow  = 10 * time.Minute
	rateMinSpan = 5 * time.Second
	rateMinGap  = time.Second // samples closer than this to the last are dropped
)

type rateSample struct {
	at                time.Time
	completed, failed int64
}

// rateSampler holds each queue's recent samples.
type rateSampler struct {
	mu      sync.Mutex
	samples map[string][]rateSample
}

func newRateSampler() *rateSampler { return &rateSampler{samples: map[string][]rateSample{}} }

// add records counts taken at at; a queue absent from counts is forgotten.
func (s *rateSampler) add(at time.Time, counts []driver.QueueCount) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := make(map[string]bool, len(counts))
	for _, c := range counts {
		seen[c.Queue] = true
		ss := s.samples[c.Queue]
		if n := len(ss); n > 0 && at.Sub(ss[n-1].at) < rateMinGap {
			continue
		}
		ss = append(ss, rateSample{at: at, completed: c.Completed, failed: c.Failed + c.DLQ})
		for len(ss) > 1 && at.Sub(ss[0].at) > rateWindow {
			ss = ss[1:]
		}
		s.samples[c.Queue] = ss
	}
	for q := range s.samples {
		if !seen[q] {
			delete(s.samples, q)
		}
	}
}

// queueRate is a queue's completed and failed jobs per minute; ok is false
// while the samples do not tell.
type queueRate struct {
	Completed, Failed float64
	OK                bool
}

// rate returns queue's rates over the retained samples.
func (s *rateSampler) rate(queue string) queueRate {
	s.mu.Lock()
	defer s.mu.Unlock()
	return rateOf(s.samples[queue])
}

// rateOf sums, separately for each counter, the intervals over which it did
// not fall.
func rateOf(ss []rateSample) queueRate {
	var r queueRate
	var dc, df int64
	var tc, tf time.Duration
	for i := 1; i < len(ss); i++ {
		dt := ss[i].at.Sub(ss[i-1].at)
		if d := ss[i].completed - ss[i-1].completed; d >= 0 {
			dc, tc = dc+d, tc+dt
		}
		if d := ss[i].failed - ss[i-1].failed; d >= 0 {
			df, tf = df+d, tf+dt
		}
	}
	if tc < rateMinSpan || tf < rateMinSpan {
		return r
	}
	return queueRate{Completed: float64(dc) / tc.Minutes(), Failed: float64(df) / tf.Minutes(), OK: true}
}

// Sample reads every queue's counts and records them for the rates the
// queues page shows. The page samples on each view; an application that
// wants rates on a first view calls Sample every few seconds (awa ui does,
// every 10 s).
func (h *Handler) Sample(ctx context.Context) error {
	counts, err := h.d.QueueCounts(ctx, h.db, "")
	if err != nil {
		return err
	}
	h.rates.add(time.Now(), counts)
	return nil
}
