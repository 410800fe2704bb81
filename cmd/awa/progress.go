package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/numfmt"
)

// progress prints one status line: rewritten in place (carriage return) on a
// terminal, one line a second otherwise.
type progress struct {
	w        io.Writer
	tty      bool
	expected int64
	start    time.Time
}

// Why the work phase ended.
const (
	endedDone        = "done"
	endedTimeout     = "timeout"
	endedInterrupted = "interrupted"
)

// dbPollInterval is how often the progress display reads awa.queue_counts;
// a terminal display redraws more often from the in-process counters.
const dbPollInterval = time.Second

// run polls until every expected job has a final outcome and the database
// shows nothing available, running, scheduled or retryable, or until limit
// passes or ctx ends. It returns why it ended and how long the jobs took to
// finish (up to the end when they did not).
func (p *progress) run(ctx context.Context, d *driver.Driver, db driver.DBTX, rec *outcomes, limit time.Duration) (string, time.Duration, error) {
	interval := dbPollInterval
	if p.tty {
		interval = 200 * time.Millisecond
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()

	type sample struct {
		at     time.Time
		finals int64
	}
	window := []sample{{p.start, 0}}
	p.header()
	var finishedAt, polledAt time.Time
	var last driver.QueueCount
	for {
		ended := ""
		select {
		case <-ctx.Done():
			ended = endedInterrupted
		case <-deadline.C:
			ended = endedTimeout
		case <-tick.C:
		}
		now := time.Now()
		finals := rec.finals()
		if finals >= p.expected && finishedAt.IsZero() {
			finishedAt = now
		}
		// Read the counts before judging the end: a job's handler reports
		// before its finalizer call commits.
		if now.Sub(polledAt) >= dbPollInterval-interval/2 || finals >= p.expected || ended != "" {
			c, err := sumCounts(context.WithoutCancel(ctx), d, db)
			if err != nil {
				p.endLine()
				return "", 0, err
			}
			last, polledAt = c, now
			active := c.Available + c.Running + c.Scheduled + c.Retryable
			if ended == "" && finals >= p.expected && active == 0 {
				ended = endedDone
			}
		}

		// Rate over the last second or so.
		window = append(window, sample{now, finals})
		for len(window) > 2 && now.Sub(window[1].at) >= time.Second {
			window = window[1:]
		}
		rate := 0.0
		if dt := now.Sub(window[0].at).Seconds(); dt > 0 {
			rate = float64(finals-window[0].finals) / dt
		}
		p.line(now, rate, last, rec)
		if ended != "" {
			p.endLine()
			took := now.Sub(p.start)
			if ended == endedDone {
				took = finishedAt.Sub(p.start)
			}
			return ended, took, nil
		}
	}
}

func (p *progress) header() {
	fmt.Fprintln(p.w, "elapsed  final/total  rate | database: available running scheduled retryable | handlers: completed failed cancelled dlq")
}

func (p *progress) line(now time.Time, rate float64, c driver.QueueCount, rec *outcomes) {
	s := fmt.Sprintf("%6.1fs  %s/%s  %s/s | avail %s run %s sched %s retry %s | ok %s fail %s cancel %s dlq %s",
		now.Sub(p.start).Seconds(), num(rec.finals()), num(p.expected), num(int64(rate)),
		num(c.Available), num(c.Running), num(c.Scheduled), num(c.Retryable),
		num(rec.count(outcomeCompleted)), num(rec.count(outcomeFailed)), num(rec.count(outcomeCancelled)), num(rec.count(outcomeDLQ)))
	if p.tty {
		fmt.Fprint(p.w, "\r"+s+"\x1b[K")
	} else {
		fmt.Fprintln(p.w, s)
	}
}

func (p *progress) endLine() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}

// sumCounts sums awa.queue_counts over every queue.
func sumCounts(ctx context.Context, d *driver.Driver, db driver.DBTX) (driver.QueueCount, error) {
	counts, err := d.QueueCounts(ctx, db, "")
	if err != nil {
		return driver.QueueCount{}, err
	}
	var s driver.QueueCount
	for _, c := range counts {
		s.Available += c.Available
		s.Running += c.Running
		s.Scheduled += c.Scheduled
		s.Retryable += c.Retryable
		s.Completed += c.Completed
		s.Cancelled += c.Cancelled
		s.Failed += c.Failed
		s.DLQ += c.DLQ
		s.WaitingExternal += c.WaitingExternal
	}
	return s, nil
}

// ringCounter counts the rotations and prunes the maintenance leader reports.
type ringCounter struct {
	mu sync.Mutex
	n  map[string]int // "ring/action/outcome"
}

func (r *ringCounter) add(ring, action, outcome string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == nil {
		r.n = map[string]int{}
	}
	r.n[ring+"/"+action+"/"+outcome]++
}

func (r *ringCounter) get(ring, action, outcome string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n[ring+"/"+action+"/"+outcome]
}

// skipped lists the ring's rotate and prune attempts that were skipped for
// a reason worth showing (not merely idle or already empty), e.g.
// "3 prune skipped_blocked".
func (r *ringCounter) skipped(ring string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for k, n := range r.n {
		parts := strings.SplitN(k, "/", 3)
		if len(parts) != 3 || parts[0] != ring {
			continue
		}
		switch parts[2] {
		case "rotated", "pruned", "skipped_idle", "already_empty":
			continue
		}
		out = append(out, fmt.Sprintf("%d %s %s", n, parts[1], parts[2]))
	}
	sort.Strings(out)
	return out
}

// follow counts client's ring maintenance events (driver.EventRingMaintenance)
// until the returned function is called, which ends the subscription and
// waits until every event received is counted.
func (r *ringCounter) follow(client *driver.Client) (stop func()) {
	events, cancel := client.Subscribe(driver.EventRingMaintenance)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range events {
			r.add(e.Ring.Ring, e.Ring.Action, e.Ring.Outcome)
		}
	}()
	return func() { cancel(); <-done }
}

// num formats n with thousands separators.
func num(n int64) string { return numfmt.Thousands(n) }
