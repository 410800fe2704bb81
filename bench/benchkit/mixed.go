package benchkit

import (
	"sync/atomic"
	"time"
)

// The mixed scenario is a rate run (rateRun) of a realistic mix: every
// job's handler takes mixSpec.work, one job in mixEvery is planned to fail
// its first attempt (the system retries it with its own backoff) and one in
// mixEvery is inserted to run mixSpec.delay later (the system's scheduled-job
// option: awa run_at, River ScheduledAt), the rest run at once; each system's
// maintenance is on, as configured. It reports jobs finished per second in
// the window, insert→start latency of the immediate jobs' first attempts,
// due→start latency of the delayed ones, and WAL per job.
const (
	mixEvery     = 20 // 5 %
	mixFailAt    = 7  // job n fails its first attempt when n % mixEvery == mixFailAt
	mixDelayedAt = 13 // and is delayed when n % mixEvery == mixDelayedAt
)

// mixSpec is the mixed scenario's job mix, with the count of what it made.
type mixSpec struct {
	delay, work    time.Duration
	planned, later atomic.Int64
}

func newMixSpec(delay, work time.Duration) *mixSpec { return &mixSpec{delay: delay, work: work} }

// args makes the jobs numbered from on: plain, but every mixEvery-th planned
// to fail once and every mixEvery-th delayed (at a different offset).
func (m *mixSpec) args(from, n int) []JobArgs {
	as := makeArgs(from, n)
	var at time.Time
	for i := range as {
		switch as[i].N % mixEvery {
		case mixFailAt:
			as[i].Fail = true
			m.planned.Add(1)
		case mixDelayedAt:
			if at.IsZero() {
				at = time.Now().Add(m.delay)
			}
			as[i].Delayed, as[i].At = true, at
			m.later.Add(1)
		}
	}
	return as
}

// account records the mix's counts and the delayed jobs' latency in run.
func (m *mixSpec) account(hd *Handler, run *Run) {
	run.PlannedFail, run.Delayed = m.planned.Load(), m.later.Load()
	run.FailedFirst, run.Retries = hd.failedOnPurpose.Load(), hd.retriesStarted.Load()
	ds, rs := hd.dueLatency.Summary(), hd.retryDueLatency.Summary()
	run.DueLatency, run.RetryDueLatency = &ds, &rs
}

// writeMixed writes the mixed scenario's section of the markdown report:
// each system at its best configuration (the medians of its runs).
func writeMixed(w func(string, ...any), rep *Report, by map[key]*agg, order []key) {
	mixed := scenarioKeys(order, "mixed")
	if len(mixed) == 0 {
		return
	}
	w("### Mixed workload\n\n")
	w("Producers at a steady %g jobs/s, a %s handler, one job in %d failing its first attempt and retried, one in %d\n",
		rep.Config.MixedRate, rep.Config.MixedWork, mixEvery, mixEvery)
	w("due %s after its insert, maintenance on. Completed: jobs finished (their last attempt) per second in the window;\n", rep.Config.MixedDelay)
	w("insert→start: first attempts of the jobs due at once; due→start: the delayed jobs, from the time they were due (so\n")
	w("it shows how soon each system makes a scheduled job runnable); retry due→start: the retries, from the time their\n")
	w("backoff made them due; WAL per job inserted, retries included.\n\n")
	w("| offered | system | configuration | inserted/s | completed/s | insert→start p50 ms | p99 ms | due→start p50 ms | p99 ms | retry due→start p50 ms | p99 ms | retries | WAL/job |\n")
	w("|--:|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, k := range mixed {
		a := by[k]
		dp50 := median(pick(a.runs, func(r *Run) float64 { return r.DueLatency.P50Ms }))
		dp99 := median(pick(a.runs, func(r *Run) float64 { return r.DueLatency.P99Ms }))
		rp50 := median(pickRetry(a.runs, func(s *Summary) float64 { return s.P50Ms }))
		rp99 := median(pickRetry(a.runs, func(s *Summary) float64 { return s.P99Ms }))
		retries := median(pick(a.runs, func(r *Run) float64 { return float64(r.Retries) }))
		w("| %s | %s | %s | %s | %s | %.2f | %.2f | %.1f | %.1f | %.1f | %.1f | %.0f | %s B |\n", k.variant, k.system,
			configOf(a.rep).label(), num(a.achieved), num(a.completion), a.p50, a.p99, dp50, dp99, rp50, rp99, retries,
			num(a.walPerJob))
	}
	w("\n")
}

// pick is f of each run that has a due→start latency.
func pick(runs []*Run, f func(r *Run) float64) []float64 {
	var xs []float64
	for _, r := range runs {
		if r.DueLatency != nil {
			xs = append(xs, f(r))
		}
	}
	return xs
}

// pickRetry is f of each run's retry due→start latency, where it has one.
func pickRetry(runs []*Run, f func(s *Summary) float64) []float64 {
	var xs []float64
	for _, r := range runs {
		if r.RetryDueLatency != nil {
			xs = append(xs, f(r.RetryDueLatency))
		}
	}
	return xs
}
