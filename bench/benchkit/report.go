package benchkit

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/awa-queue/awa/internal/numfmt"
)

// agg is the median view of one (scenario, variant, system) over repeats.
type agg struct {
	runs                          []*Run
	rep                           *Run // the run with the median throughput
	perSec, walPerJob             float64
	p50, p95, p99, max            float64
	achieved, completion, depthMx float64
	dead, upd, del, ins, size     float64
}

type key struct{ scenario, variant, system string }

// scenarioVariants returns the (scenario, variant) pairs of order, each once,
// in the order they first appear, with the system left empty.
func scenarioVariants(order []key) []key {
	seen := map[key]bool{}
	var out []key
	for _, k := range order {
		kk := key{k.scenario, k.variant, ""}
		if !seen[kk] {
			seen[kk] = true
			out = append(out, kk)
		}
	}
	return out
}

// aggregate groups the runs that did not fail by (scenario, variant,
// system), each system at its best configuration of the sweep (bestConfigs;
// with one configuration, that one), and takes their medians.
func aggregate(rep *Report) (map[key]*agg, []key) {
	best := bestConfigs(aggregateConfigs(rep))
	var runs []*Run
	for _, r := range rep.Runs {
		if r.Error == "" && best[configOf(r).key()] == configOf(r) {
			runs = append(runs, r)
		}
	}
	return group(runs, func(r *Run) key { return key{r.Scenario, r.Variant, r.System} })
}

// group groups runs by k, in the order their keys first appear, and takes
// the medians of each group.
func group[K comparable](runs []*Run, k func(*Run) K) (map[K]*agg, []K) {
	by := map[K]*agg{}
	var order []K
	for _, r := range runs {
		kk := k(r)
		a, ok := by[kk]
		if !ok {
			a = &agg{}
			by[kk] = a
			order = append(order, kk)
		}
		a.runs = append(a.runs, r)
	}
	for _, a := range by {
		a.medians()
	}
	return by, order
}

// medians sets a's figures from its runs.
func (a *agg) medians() {
	col := func(f func(r *Run) float64) float64 {
		xs := make([]float64, len(a.runs))
		for i, r := range a.runs {
			xs[i] = f(r)
		}
		return median(xs)
	}
	a.perSec = col(func(r *Run) float64 { return r.PerSecond })
	a.walPerJob = col(func(r *Run) float64 { return r.WALPerJob })
	lat := func(f func(s *Summary) float64) float64 {
		return col(func(r *Run) float64 {
			if r.Latency == nil {
				return 0
			}
			return f(r.Latency)
		})
	}
	a.p50 = lat(func(s *Summary) float64 { return s.P50Ms })
	a.p95 = lat(func(s *Summary) float64 { return s.P95Ms })
	a.p99 = lat(func(s *Summary) float64 { return s.P99Ms })
	a.max = lat(func(s *Summary) float64 { return s.MaxMs })
	a.achieved = col(func(r *Run) float64 { return r.AchievedInsert })
	a.completion = col(func(r *Run) float64 { return r.CompletionRate })
	a.depthMx = col(func(r *Run) float64 { return float64(r.DepthMax) })
	sum := func(f func(t TableFamily) int64) float64 {
		return col(func(r *Run) float64 {
			var n int64
			for _, t := range r.Families {
				n += f(t)
			}
			return float64(n)
		})
	}
	a.dead = sum(func(t TableFamily) int64 { return t.Dead })
	a.upd = sum(func(t TableFamily) int64 { return t.Upd })
	a.del = sum(func(t TableFamily) int64 { return t.Del })
	a.ins = sum(func(t TableFamily) int64 { return t.Ins })
	a.size = sum(func(t TableFamily) int64 { return t.SizeBytes })
	runs := append([]*Run(nil), a.runs...)
	sort.Slice(runs, func(i, j int) bool { return runs[i].PerSecond < runs[j].PerSecond })
	a.rep = runs[(len(runs)-1)/2]
}

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "–"
	}
	if a/b < 0.1 {
		return fmt.Sprintf("%.3f×", a/b)
	}
	return fmt.Sprintf("%.2f×", a/b)
}

// makeCommand is the make invocation that reproduces the run: the bench
// flags other than -quick, -dsn, -out and -md go to BENCH_FLAGS.
func makeCommand(rep *Report) string {
	args := strings.Fields(rep.Command)
	var extra []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		name := strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-")
		switch name {
		case "quick":
			continue
		case "dsn", "out", "md":
			if !strings.Contains(a, "=") {
				i++
			}
			continue
		}
		extra = append(extra, a)
	}
	cmd := "make bench"
	if rep.Quick {
		cmd += " QUICK=1"
	}
	if len(extra) > 0 {
		cmd += " BENCH_FLAGS='" + strings.Join(extra, " ") + "'"
	}
	return cmd
}

func num(v float64) string {
	switch {
	case v >= 100:
		return commas(int64(v + 0.5))
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func commas(n int64) string { return numfmt.Thousands(n) }

func bytesH(v float64) string {
	switch {
	case v >= 1<<30:
		return fmt.Sprintf("%.2f GiB", v/(1<<30))
	case v >= 1<<20:
		return fmt.Sprintf("%.1f MiB", v/(1<<20))
	case v >= 1<<10:
		return fmt.Sprintf("%.0f KiB", v/(1<<10))
	default:
		return fmt.Sprintf("%.0f B", v)
	}
}

func unit(scenario string) string {
	if scenario == "enqueue" {
		return "inserts/s"
	}
	return "jobs/s"
}

// ---------------------------------------------------------------- terminal

// PrintHeader prints the systems, the machine and the server settings that
// matter, in two lines.
func PrintHeader(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "bench: %s on %d CPUs, %s; %s\n", strings.Join(rep.Config.Systems, " vs "), rep.Machine.CPUs,
		rep.Machine.MemoryGB, strings.SplitN(rep.Postgres.Version, ",", 2)[0])
	s := rep.Postgres.Settings
	fmt.Fprintf(w, "bench: fsync=%s synchronous_commit=%s full_page_writes=%s shared_buffers=%s; workers=%d, pool=%d conns\n",
		s["fsync"], s["synchronous_commit"], s["full_page_writes"], s["shared_buffers"], rep.Config.Workers, rep.Config.Conns)
}

// PrintRun prints one run on one line.
func PrintRun(w io.Writer, r *Run) {
	if r.Error != "" {
		fmt.Fprintf(w, "%-6s %-8s %-13s #%d  ERROR %s\n", r.System, r.Scenario, r.Variant, r.Repeat, r.Error)
		return
	}
	var dead int64
	for _, t := range r.Families {
		dead += t.Dead
	}
	cfg := ""
	if r.Workers > 0 {
		cfg = "[" + configOf(r).label() + "]  "
	}
	line := fmt.Sprintf("%-6s %-8s %-13s #%d  %s%10s %-9s WAL/job %7.0f B  dead %d", r.System, r.Scenario, r.Variant,
		r.Repeat, cfg, num(r.PerSecond), unit(r.Scenario), r.WALPerJob, dead)
	if r.DueLatency != nil {
		line += fmt.Sprintf("  delayed %d due→start p50 %.1f p99 %.1f ms; planned failures %d, retries %d",
			r.Delayed, r.DueLatency.P50Ms, r.DueLatency.P99Ms, r.PlannedFail, r.Retries)
	}
	if r.RetryDueLatency != nil {
		line += fmt.Sprintf(" retry due→start p50 %.1f p99 %.1f ms", r.RetryDueLatency.P50Ms, r.RetryDueLatency.P99Ms)
	}
	if r.Latency != nil {
		line += fmt.Sprintf("  ins %.0f/s  p50 %.1f p95 %.1f p99 %.1f max %.1f ms  depth≤%d", r.AchievedInsert,
			r.Latency.P50Ms, r.Latency.P95Ms, r.Latency.P99Ms, r.Latency.MaxMs, r.DepthMax)
	}
	if r.ToClaim != nil {
		line += fmt.Sprintf("  (insert→claim p50 %.1f p99 %.1f, claim→start p50 %.1f p99 %.1f ms)",
			r.ToClaim.P50Ms, r.ToClaim.P99Ms, r.ClaimToStart.P50Ms, r.ClaimToStart.P99Ms)
	}
	if r.PreInsert != nil {
		line += fmt.Sprintf("  (pre-insert %s/s)", num(r.PreInsert.PerSecond))
	}
	if r.LifeWALPerJob > 0 {
		line += fmt.Sprintf("  life WAL/job %.0f B (pre-insert %.0f, reclaim %.0f)", r.LifeWALPerJob,
			float64(r.PreInsert.WALBytes)/float64(max(r.Jobs, 1)), float64(r.ReclaimWALBytes)/float64(max(r.Jobs, 1)))
	}
	fmt.Fprintln(w, line)
	if r.Rings != nil {
		fmt.Fprintf(w, "       rings:  %s\n", ringLine(r))
	}
	if b := r.Backlog; b != nil {
		fmt.Fprintf(w, "       backlog: %s jobs in %.0f MB; claim %d calls, %.1f jobs/call, mean %.2f ms, stddev %.2f, max %.1f ms, "+
			"buffers/call %.0f hit %.1f read\n", num(float64(b.Backlog)), float64(b.DBBytes)/1e6, b.ClaimCalls, b.ClaimRowsPer,
			b.ClaimMeanMs, b.ClaimStdMs, b.ClaimMaxMs, b.ClaimHitPer, b.ClaimReadPer)
		if b.CarryHeld {
			fmt.Fprintf(w, "       carry:  held, nothing moved: %d prune call, %.3f s, WAL %d B\n", b.CarryCalls,
				b.CarrySeconds, b.CarryWAL)
		} else if b.CarryCalls > 0 && b.CarryJobs == 0 {
			fmt.Fprintf(w, "       carry:  nothing to move: %d prune call, %.3f s, WAL %d B\n", b.CarryCalls,
				b.CarrySeconds, b.CarryWAL)
		} else if b.CarryCalls > 0 {
			fmt.Fprintf(w, "       carry:  %d jobs in %d prune calls, %.2f s (%.0f µs/job), WAL %.0f B/job\n", b.CarryJobs,
				b.CarryCalls, b.CarrySeconds, b.CarrySeconds*1e6/float64(max(b.CarryJobs, 1)),
				float64(b.CarryWAL)/float64(max(b.CarryJobs, 1)))
		}
	}
	if q := r.Queues; q != nil {
		sum := func(s Summary) string { return fmt.Sprintf("p50 %.2f p99 %.2f ms", s.P50Ms, s.P99Ms) }
		fmt.Fprintf(w, "       queues: %d; first insert %s; next insert %s; claim %s; queue_counts() %s; queue_counts(q) %s\n",
			q.Queues, sum(q.FirstInsert), sum(q.NextInsert), sum(q.Claim), sum(q.CountsAll), sum(q.CountsOne))
		line := fmt.Sprintf("       tick:   %.1f ms:", q.TickMs)
		for _, c := range q.Tick {
			line += fmt.Sprintf(" %s %.1f;", c.Call, c.Ms)
		}
		fmt.Fprintln(w, line)
	}
	if hj := r.Held; hj != nil {
		fmt.Fprintf(w, "       held:   %d parked, %d still waiting_external; %d long, %d still open, %d completed once "+
			"(%d progress writes, %d heartbeats; set up in %.1f s)\n", hj.Parked, hj.ParkedWaiting, hj.Long, hj.LongOpen,
			hj.LongCompleted, hj.ProgressWrites, hj.Heartbeats, hj.SetupSeconds)
		fmt.Fprintf(w, "       callbacks during the run: %d by long attempts, %d by fresh attempts; %d resumed and taken once, "+
			"%d fresh completed\n", hj.CallbacksLong, hj.CallbacksFresh, hj.CallbacksResumed, hj.FreshCompleted)
	}
}

// ringLine is a run's ring outcomes on one line: per ring, rotations and
// prunes, the prunes that carried rows forward and the rows carried,
// skipped_live, then what else held them back when anything did, and the
// peak size of the ring's tables.
func ringLine(r *Run) string {
	var parts []string
	for _, ring := range ringNames {
		c := r.Rings[ring]
		p := fmt.Sprintf("%s %d rotated %d pruned %d carries (%s rows) %d skipped_live", ring, c["rotated"], c["pruned"],
			r.RingCarries[ring], commas(r.RingRowsCarried[ring]), c["skipped_live"])
		var why []string
		for _, o := range []string{"carried", "skipped_blocked", "skipped_busy"} {
			if c[o] > 0 {
				why = append(why, fmt.Sprintf("%s %d", o, c[o]))
			}
		}
		if len(why) > 0 {
			p += " (" + strings.Join(why, ", ") + ")"
		}
		parts = append(parts, p+", peak "+bytesH(float64(r.RingPeakBytes[ring])))
	}
	s := strings.Join(parts, "; ")
	if r.RingEventsDropped > 0 {
		s += fmt.Sprintf("; %d ring events dropped: counts too low", r.RingEventsDropped)
	}
	if r.RingSizeMissed > 0 {
		s += fmt.Sprintf("; %d of %d size samples failed", r.RingSizeMissed, r.RingSizeMissed+r.RingSizeSamples)
	}
	return s
}

// PrintSummary prints the medians: per scenario and variant, the throughput
// and WAL per job of each of the systems named (a system without runs shows
// 0), with their ratio when two are named (none named: the report's
// systems); then the latency table of the rate runs.
func PrintSummary(w io.Writer, rep *Report, systems ...string) {
	if len(systems) == 0 {
		systems = rep.Config.Systems
	}
	if len(systems) == 0 {
		return
	}
	by, order := aggregate(rep)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// cols renders one cell per system, then the pair's cell when two are named.
	cols := func(cell func(s string) string, pairCell func() string) string {
		var b strings.Builder
		for _, s := range systems {
			b.WriteString(cell(s) + "\t")
		}
		if len(systems) == 2 {
			b.WriteString(pairCell() + "\t")
		}
		return b.String()
	}
	pair := systems[0] + "/" + systems[len(systems)-1]
	fmt.Fprintln(tw, "scenario\tvariant\tunit\t"+
		cols(func(s string) string { return s }, func() string { return pair })+
		cols(func(s string) string { return "WAL/job " + s }, func() string { return pair }))
	for _, k := range scenarioVariants(order) {
		get := func(s string, f func(*agg) float64) float64 {
			if x := by[key{k.scenario, k.variant, s}]; x != nil {
				return f(x)
			}
			return 0
		}
		figures := func(f func(*agg) float64) string {
			return cols(func(s string) string { return num(get(s, f)) },
				func() string { return ratio(get(systems[0], f), get(systems[1], f)) })
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s%s\n", k.scenario, k.variant, unit(k.scenario),
			figures(func(x *agg) float64 { return x.perSec }), figures(func(x *agg) float64 { return x.walPerJob }))
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rate\tsystem\tinserted/s\tcompleted/s\tp50 ms\tp95 ms\tp99 ms\tmax ms\tdepth max\t")
	for _, k := range order {
		if !offeredRate(k.scenario) {
			continue
		}
		a := by[k]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t%.1f\t%.0f\t\n", rateLabel(k), k.system, num(a.achieved),
			num(a.completion), a.p50, a.p95, a.p99, a.max, a.depthMx)
	}
	tw.Flush()
	printBest(w, rep)
	if n := rep.Failures(); n > 0 {
		fmt.Fprintf(w, "\n%d run(s) failed; see the JSON file\n", n)
	}
}

// Failures counts the runs that failed (Run.Error set).
func (rep *Report) Failures() int {
	n := 0
	for _, r := range rep.Runs {
		if r.Error != "" {
			n++
		}
	}
	return n
}

// ---------------------------------------------------------------- markdown

const (
	analysisBegin = "<!-- analysis:begin -->"
	analysisEnd   = "<!-- analysis:end -->"
)

// WriteMarkdown rewrites the awa vs River report (docs/benchmarks.md) at
// path from rep, keeping the text between the analysis markers of the file
// there.
func WriteMarkdown(path string, rep *Report) error {
	analysis := "\n_No analysis written yet. Text between the analysis markers survives `make bench`._\n\n"
	if old, err := os.ReadFile(path); err == nil {
		s := string(old)
		if i, j := strings.Index(s, analysisBegin), strings.Index(s, analysisEnd); i >= 0 && j > i {
			analysis = s[i+len(analysisBegin) : j]
		}
	}
	by, order := aggregate(rep)
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	get := func(k key) *agg { return by[k] }

	w("# Benchmarks: awa vs River\n\n")
	w("<!-- Generated by the bench command (bench/, `make bench`): everything but the Analysis section is\n")
	w("     rewritten on every run. Raw results: bench/results/*.json (not committed). -->\n\n")
	mode := "full"
	if rep.Quick {
		mode = "quick (`QUICK=1`: short runs, indicative only)"
	}
	w("Latest run: %s UTC, %s mode, %d run(s) per system and scenario (medians quoted).\n\n",
		rep.StartedAt.Format("2006-01-02 15:04"), mode, rep.Config.Repeat)
	if len(rep.MergedFrom) > 0 {
		w("Merged (`bench -merge`) from %d results files, each run with its own command (inside `make bench`'s\n", len(rep.MergedFrom))
		w("private cluster, or with -dsn):\n\n")
		for _, m := range rep.MergedFrom {
			w("- %s UTC, awa %s, %d runs: `%s`\n", m.StartedAt.Format("2006-01-02 15:04"), m.AwaSource, m.Runs, m.Command)
		}
		w("\n")
	} else {
		w("```sh\n")
		w("%s\n", makeCommand(rep))
		w("# which runs, inside a private PostgreSQL cluster (scripts/pg.sh, AWA_PG_OPTS below):\n")
		w("%s\n```\n\n", rep.Command)
	}
	w("%s", sweepHowTo)

	// ---- setup
	w("## Setup\n\n")
	w("| | |\n|---|---|\n")
	w("| machine | %d CPUs (%s), %s RAM, Linux %s, load average at start %s |\n", rep.Machine.CPUs,
		rep.Machine.CPUModel, rep.Machine.MemoryGB, rep.Machine.Kernel, rep.Machine.LoadAvg)
	w("| note | the machine may be shared with other work (see the load average): compare ratios rather than absolute numbers |\n")
	w("| awa source | %s |\n", rep.Source)
	river := rep.River
	if river == "" {
		river = "v0.51.2"
	}
	w("| River | %s (riverpgxv5 driver, schema by rivermigrate) |\n", river)
	if rep.Config.AwaSQL != "" {
		w("| **experiment** | awa patched after migration with `%s` (not the committed SQL) |\n", rep.Config.AwaSQL)
	}
	w("| PostgreSQL | %s |\n", rep.Postgres.Version)
	if rep.Postgres.ServerCommandOpts != "" {
		w("| server options | `%s` (AWA_PG_OPTS of `make bench`, on top of scripts/pg.sh's awa.conf) |\n", rep.Postgres.ServerCommandOpts)
	}
	w("| Go | %s; client and server on the same machine, TCP over loopback |\n", rep.Machine.GoVer)
	w("| workload | no-op handler, args `{\"n\": i}`, one queue (`default`), priority default |\n")
	if c := rep.Config; len(c.WorkerList)+len(c.ConnList) > 2 {
		w("| workers | swept: %v workers × %v pool connections, each system at every pair (see Sweep); rate producers: %d goroutines on their own pool |\n",
			c.WorkerList, c.ConnList, c.Producers)
	} else {
		w("| workers | %d for both; worker pool max %d connections for both; rate producers: %d goroutines on their own pool |\n",
			rep.Config.Workers, rep.Config.Conns, rep.Config.Producers)
	}
	w("| burn-down | %s jobs pre-inserted (bulk path, 100k per transaction), CHECKPOINT, stats reset, then timed until the last job is finalized |\n",
		commas(int64(rep.Config.Jobs)))
	w("| rate | %s warm-up + %s window per rate; latency = job row `created_at` (DB clock, the insert statement's start) → handler start (worker clock); so it includes any wait of the insert itself (e.g. awa's lane lock) |\n",
		rep.Config.RateWarmup, rep.Config.RateDuration)
	if rep.Config.PinnedDuration != "" {
		w("| pinned | a rate run at %g jobs/s, %s warm-up + %s window, while an idle session holds a REPEATABLE READ snapshot (see Pinned MVCC horizon) |\n",
			rep.Config.PinnedRate, rep.Config.RateWarmup, rep.Config.PinnedDuration)
	}
	if c := rep.Config; c.MixedDuration != "" {
		w("| mixed | %g jobs/s offered, %s warm-up + %s window; handler %s; one job in %d fails its first attempt (retried with the system's default backoff), one in %d is inserted due %s later (awa `run_at`, River `ScheduledAt`); maintenance on |\n",
			c.MixedRate, c.RateWarmup, c.MixedDuration, c.MixedWork, mixEvery, mixEvery, c.MixedDelay)
	}
	if c := rep.Config; c.Parked+c.Long > 0 {
		w("| held jobs | awa burn-down, rate and pinned runs: %s parked (`waiting_external`, callback timeout %s) and %d long attempts held open in queue `%s`, set up before the measured phase, accounted for after it; every tick (%s, or the maintenance interval when shorter) the process heartbeats, each long attempt writes progress every %d ticks and registers a callback every %d, and a fresh job of the queue is claimed and registers one; each callback is resumed and taken %d ticks later |\n",
			commas(int64(c.Parked)), heldCallbackTimeout, c.Long, HeldQueue, heldTick, heldProgressEvery, heldCallbackEvery, heldWaitTicks)
	}
	w("| enqueue | %s per variant; single = one job per transaction (awa: `SELECT * FROM awa.insert_job(...)`, River: `Client.Insert`); bulk = %s jobs per transaction (awa: `InsertMany` → `awa.insert_jobs` arrays, River: `InsertManyFast`, COPY); bulk xN = N such producers at once, each on its own connection |\n\n",
		rep.Config.EnqueueDuration, commas(int64(rep.Config.BulkBatch)))

	w("PostgreSQL settings (PostgreSQL 15 defaults except scripts/pg.sh's `max_connections = 200` and the\n")
	w("server options above):\n\n| setting | value |\n|---|---|\n")
	var names []string
	for k := range rep.Postgres.Settings {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		w("| %s | %s |\n", k, rep.Postgres.Settings[k])
	}
	w("\nClient settings:\n\n| system | setting | value |\n|---|---|---|\n")
	var confs []string
	for sys := range rep.ClientConfs {
		confs = append(confs, sys)
	}
	sort.Strings(confs)
	for _, sys := range confs {
		var ks []string
		for k := range rep.ClientConfs[sys] {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			w("| %s | %s | %s |\n", sys, k, rep.ClientConfs[sys][k])
		}
	}
	w("\n")

	// ---- results
	w("## Results\n\n")
	w("Throughput (burn-down: jobs worked per second; rate: jobs started per second in the window; enqueue: jobs inserted per second)\n")
	w("and WAL written per job during the measured phase (`pg_current_wal_lsn()` difference / jobs; burn-down excludes the pre-insert):\n\n")
	w("| scenario | variant | unit | awa | River | awa/River | WAL/job awa | WAL/job River | awa/River |\n")
	w("|---|---|---|--:|--:|--:|--:|--:|--:|\n")
	for _, k := range scenarioVariants(order) {
		a, r := get(key{k.scenario, k.variant, "awa"}), get(key{k.scenario, k.variant, "river"})
		f := func(x *agg, g func(*agg) float64) float64 {
			if x == nil {
				return 0
			}
			return g(x)
		}
		ps := func(x *agg) float64 { return x.perSec }
		wj := func(x *agg) float64 { return x.walPerJob }
		w("| %s | %s | %s | %s | %s | **%s** | %s B | %s B | **%s** |\n", k.scenario, k.variant, unit(k.scenario),
			num(f(a, ps)), num(f(r, ps)), ratio(f(a, ps), f(r, ps)), num(f(a, wj)), num(f(r, wj)), ratio(f(a, wj), f(r, wj)))
	}
	for _, k := range order {
		if k.scenario == "burndown" && by[k].rep.PreInsert != nil {
			p := by[k].rep.PreInsert
			w("\nPre-insert of the burn-down (%s, not measured above): %s jobs/s, %s B WAL/job.", k.system,
				num(p.PerSecond), num(float64(p.WALBytes)/float64(max(p.Jobs, 1))))
		}
	}
	w("\n\n")

	w("### Latency at an offered rate\n\n")
	w("| offered | system | inserted/s | completed/s | p50 ms | p95 ms | p99 ms | max ms | queue depth max | insert call p99 ms |\n")
	w("|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, k := range order {
		if !offeredRate(k.scenario) {
			continue
		}
		a := by[k]
		icp := 0.0
		if a.rep.InsertCallLatncy != nil {
			icp = a.rep.InsertCallLatncy.P99Ms
		}
		w("| %s | %s | %s | %s | %.2f | %.2f | %.2f | %.1f | %.0f | %.2f |\n", rateLabel(k), k.system, num(a.achieved),
			num(a.completion), a.p50, a.p95, a.p99, a.max, a.depthMx, icp)
	}
	w("\n")
	writePinned(w, rep, by, order)
	writeMixed(w, rep, by, order)
	writeSweep(w, rep)

	// Each section writes its own table: alike the others only in shape.
	w("### Table churn and size\n\n")
	w("Per run, summed over the system's tables (partitions of a table summed), read from `pg_stat_user_tables` after\n")
	w("the clients stopped and their backends exited; counters cover the measured phase only (reset after the\n")
	w("burn-down's pre-insert), sizes are `pg_total_relation_size` at the end.\n\n")
	w("| scenario | variant | system | n_tup_ins | n_tup_upd | n_tup_del | n_dead_tup | size |\n|---|---|---|--:|--:|--:|--:|--:|\n")
	for _, k := range order {
		a := by[k]
		w("| %s | %s | %s | %s | %s | %s | %s | %s |\n", k.scenario, k.variant, k.system, commas(int64(a.ins)),
			commas(int64(a.upd)), commas(int64(a.del)), commas(int64(a.dead)), bytesH(a.size))
	}
	w("\n")
	for _, k := range order {
		if k.scenario != "burndown" {
			continue
		}
		r := by[k].rep
		w("Burn-down, %s, by table (tables with activity or size over 64 KiB):\n\n", k.system)
		w("| table | rels | n_tup_ins | n_tup_upd | n_tup_hot_upd | n_tup_del | n_live_tup | n_dead_tup | autovacuums | size |\n")
		w("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, t := range r.Families {
			if t.Ins+t.Upd+t.Del+t.Dead == 0 && t.SizeBytes <= 64<<10 {
				continue
			}
			w("| %s | %d | %s | %s | %s | %s | %s | %s | %d | %s |\n", t.Table, t.Partitions, commas(t.Ins), commas(t.Upd),
				commas(t.HotUpd), commas(t.Del), commas(t.Live), commas(t.Dead), t.Vacuums, bytesH(float64(t.SizeBytes)))
		}
		w("\n")
	}
	writeRings(w, by, order)

	// ---- profile
	w("### Where the time goes\n\n")
	w("Wait events: `pg_stat_activity` of the run's database sampled every 100 ms (active backends only; `CPU` = no\n")
	w("wait event); the value is the average number of backends in that state. Commits: `xact_commit` of the run's\n")
	w("database per job. CPU: machine-wide busy share (100%% = all cores) and the bench process's share (both\n")
	w("systems' Go client runs in it).\n\n")
	for _, k := range order {
		if k.scenario == "enqueue" {
			continue
		}
		r := by[k].rep
		var evs []string
		for i, ev := range r.Waits {
			if i == 8 {
				break
			}
			evs = append(evs, fmt.Sprintf("%s %.2f", ev.Event, ev.AvgBusy))
		}
		w("- **%s %s, %s**: commits/job %.3f; CPU machine %.0f%%, bench process %.0f%%; waits: %s\n", k.scenario,
			k.variant, k.system, float64(r.DB.Commits)/float64(max(r.Jobs, 1)), r.CPU.MachineBusyPct,
			r.CPU.BenchProcPct, strings.Join(evs, ", "))
	}
	w("\n")
	for _, k := range order {
		if k.scenario != "burndown" && !(k.scenario == "rate" && strings.HasPrefix(k.variant, "800")) {
			continue
		}
		r := by[k].rep
		if len(r.Stmts) == 0 {
			continue
		}
		w("pg_stat_statements, %s %s, %s (top statements by total time", k.scenario, k.variant, k.system)
		if rep.Config.Profile {
			w("; nested statements tracked")
		}
		w("):\n\n| calls | mean ms | total ms | rows/call | statement |\n|--:|--:|--:|--:|---|\n")
		for i, s := range r.Stmts {
			if i == 8 {
				break
			}
			q := s.Query
			if len(q) > 110 {
				q = q[:110] + "…"
			}
			q = strings.ReplaceAll(q, "|", "\\|")
			w("| %s | %.3f | %s | %.1f | `%s` |\n", commas(s.Calls), s.MeanMs, num(s.TotalMs),
				float64(s.Rows)/float64(max(s.Calls, 1)), q)
		}
		w("\n")
		if len(r.Funcs) > 0 {
			w("PL/pgSQL functions (track_functions = pl):\n\n| function | calls | total ms | self ms | mean ms |\n|---|--:|--:|--:|--:|\n")
			for i, f := range r.Funcs {
				if i == 12 {
					break
				}
				w("| %s | %s | %s | %s | %.3f |\n", f.Function, commas(f.Calls), num(f.TotalMs), num(f.SelfMs),
					f.TotalMs/float64(max(f.Calls, 1)))
			}
			w("\n")
		}
	}

	// ---- targets
	w("## Targets\n\n")
	w("| target | measured | status |\n|---|---|---|\n")
	status := func(ok bool) string {
		if ok {
			return "met"
		}
		return "**not met**"
	}
	bd := fmt.Sprintf("%d jobs", rep.Config.Jobs)
	if a, r := get(key{"burndown", bd, "awa"}), get(key{"burndown", bd, "river"}); a != nil && r != nil {
		w("| burn-down ≥ 2× River | awa %s vs River %s jobs/s = %.2f× | %s |\n", num(a.perSec), num(r.perSec),
			a.perSec/r.perSec, status(a.perSec >= 2*r.perSec))
		w("| WAL/job ≤ ⅓ of River (burn-down) | awa %s B vs River %s B = %s | %s |\n", num(a.walPerJob),
			num(r.walPerJob), ratio(a.walPerJob, r.walPerJob), status(a.walPerJob*3 <= r.walPerJob))
	}
	if a := get(key{"burndown", bd, "awa"}); a != nil {
		note := ""
		if rep.Config.Jobs < 1_000_000 {
			note = fmt.Sprintf(" (after %s jobs, not 1M)", commas(int64(rep.Config.Jobs)))
		}
		w("| < 1,000 dead tuples on awa tables after 1M jobs | %s dead tuples%s | %s |\n", commas(int64(a.dead)), note,
			status(a.dead < 1000))
	}
	for _, k := range order {
		if k.scenario == "rate" && k.system == "awa" && strings.HasPrefix(k.variant, "800/") {
			a := by[k]
			w("| insert→start p99 ≤ 20 ms at 800/s | p99 %.2f ms (p50 %.2f, max %.1f) | %s |\n", a.p99, a.p50, a.max,
				status(a.p99 <= 20))
		}
		if k.scenario == "enqueue" && k.system == "awa" && strings.HasPrefix(k.variant, "bulk") {
			a := by[k]
			w("| bulk enqueue ≥ 100k jobs/s | %s jobs/s (%s) | %s |\n", num(a.perSec), k.variant, status(a.perSec >= 100_000))
		}
	}
	w("\n## Analysis\n\n%s%s%s\n", analysisBegin, analysis, analysisEnd)
	if err := os.MkdirAll(dirOf(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return "."
}

// offeredRate tells the scenarios whose runs offer a fixed rate and measure
// insert-to-start latency.
func offeredRate(scenario string) bool {
	return scenario == "rate" || scenario == "pinned" || scenario == "mixed"
}

// rateLabel names a rate run's row in the latency tables.
func rateLabel(k key) string {
	if k.scenario == "pinned" || k.scenario == "mixed" {
		return k.variant + " " + k.scenario
	}
	return k.variant
}

// scenarioKeys are the keys of order in scenario, in order.
func scenarioKeys(order []key, scenario string) []key {
	var out []key
	for _, k := range order {
		if k.scenario == scenario {
			out = append(out, k)
		}
	}
	return out
}

// writePinned compares each system's pinned-horizon run with its clean run
// at the same offered rate (when the report has one): latency and the dead
// tuples its tables hold at the end.
func writePinned(w func(string, ...any), rep *Report, by map[key]*agg, order []key) {
	pinned := scenarioKeys(order, "pinned")
	if len(pinned) == 0 {
		return
	}
	w("### Pinned MVCC horizon\n\n")
	w("An idle session holds a REPEATABLE READ snapshot of an unrelated table (`BEGIN ISOLATION LEVEL REPEATABLE READ;\n")
	w("SELECT count(*) FROM bench_unrelated`, then nothing) for the whole %s window and until the statistics\n", rep.Config.PinnedDuration)
	w("are read, so no row version deleted or updated meanwhile can be vacuumed. Compared with the clean rate run at\n")
	w("the same offered rate, when this report has one.\n\n")
	w("| offered | system | p99 ms pinned | p99 ms clean | pinned/clean | dead tuples pinned | dead tuples clean | size pinned |\n")
	w("|--:|---|--:|--:|--:|--:|--:|--:|\n")
	for _, k := range pinned {
		a := by[k]
		clean := by[key{"rate", k.variant, k.system}]
		p99c, deadc := "–", "–"
		r := "–"
		if clean != nil {
			p99c, deadc, r = fmt.Sprintf("%.2f", clean.p99), commas(int64(clean.dead)), ratio(a.p99, clean.p99)
		}
		w("| %s | %s | %.2f | %s | %s | %s | %s | %s |\n", k.variant, k.system, a.p99, p99c, r,
			commas(int64(a.dead)), deadc, bytesH(a.size))
	}
	w("\n")
}

// writeRings writes, for each awa run that counted its rings (burn-down,
// rate, pinned; the median run), what the worker client's maintenance did to
// each ring, and the held jobs' account.
func writeRings(w func(string, ...any), by map[key]*agg, order []key) {
	for _, k := range order {
		r := by[k].rep
		if r.Rings == nil {
			continue
		}
		w("Ring maintenance during the %s run, %s %s (outcomes its maintenance leader reported while the worker client ran; peak: the ring tables' size, sampled every %s):\n\n",
			k.scenario, k.system, k.variant, ringSizeEvery)
		w("| ring | rotated | pruned | carries | rows carried | carried (partial) | skipped_live | skipped_blocked | skipped_busy (rotation) | peak size |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, ring := range ringNames {
			c := r.Rings[ring]
			w("| %s | %d | %d | %d | %s | %d | %d | %d | %d | %s |\n", ring, c["rotated"], c["pruned"], r.RingCarries[ring],
				commas(r.RingRowsCarried[ring]), c["carried"], c["skipped_live"], c["skipped_blocked"], c["skipped_busy"],
				bytesH(float64(r.RingPeakBytes[ring])))
		}
		if hj := r.Held; hj != nil {
			w("\nHeld jobs at the end: %s of %s parked jobs still `waiting_external` with their token; %d of %d long attempts still open with their claim-time receipt, then completed once. Callbacks registered during the run: %s by long attempts, %s by fresh attempts, %s resumed and taken once, %s fresh attempts completed.\n",
				commas(hj.ParkedWaiting), commas(int64(hj.Parked)), hj.LongOpen, hj.Long, commas(hj.CallbacksLong),
				commas(hj.CallbacksFresh), commas(hj.CallbacksResumed), commas(hj.FreshCompleted))
		}
		w("\n")
	}
}
