package benchkit

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"
)

// A sweep runs each scenario at several worker counts and pool sizes
// (-workers, -conns), and River also at its own bench command's
// configuration (-river-config): the report shows every configuration and
// compares each system at its best.

// runCfg is one configuration of one system in one scenario variant.
type runCfg struct {
	scenario, variant, system string
	config                    string // "" for the sweep's, else the system's own (River's "own")
	workers, conns            int
}

func configOf(r *Run) runCfg {
	return runCfg{r.Scenario, r.Variant, r.System, r.Config, r.Workers, r.Conns}
}

func (c runCfg) key() key { return key{c.scenario, c.variant, c.system} }

// label names the configuration in the report.
func (c runCfg) label() string {
	if c.workers == 0 {
		return "–"
	}
	s := fmt.Sprintf("%d workers, %d conns", c.workers, c.conns)
	if c.config != "" {
		s = c.config + ": " + s
	}
	return s
}

// aggregateConfigs groups the runs that did not fail by configuration and
// takes their medians.
func aggregateConfigs(rep *Report) (map[runCfg]*agg, []runCfg) {
	var runs []*Run
	for _, r := range rep.Runs {
		if r.Error == "" {
			runs = append(runs, r)
		}
	}
	return group(runs, configOf)
}

// keptUp is the share of the achieved insert rate an offered-rate run must
// complete for its latency to count (bestConfigs).
const keptUp = 0.98

// bestConfigs picks, per (scenario, variant, system), the configuration at
// its best: for a throughput scenario (burndown, enqueue) the highest median
// jobs/s; for an offered-rate one (rate, pinned, mixed) the lowest median
// p99 latency among the configurations that kept up (completed at least
// keptUp of the achieved insert rate), or the highest completion rate when
// none did. A tie goes to the configuration run first.
func bestConfigs(by map[runCfg]*agg, order []runCfg) map[key]runCfg {
	best := map[key]runCfg{}
	for _, c := range order {
		b, ok := best[c.key()]
		if !ok || better(c.scenario, by[c], by[b]) {
			best[c.key()] = c
		}
	}
	return best
}

// better tells whether a beats b in scenario (see bestConfigs).
func better(scenario string, a, b *agg) bool {
	if !offeredRate(scenario) {
		return a.perSec > b.perSec
	}
	aUp, bUp := a.completion >= keptUp*a.achieved, b.completion >= keptUp*b.achieved
	switch {
	case aUp && bUp:
		return a.p99 < b.p99
	case aUp != bUp:
		return aUp
	}
	return a.completion > b.completion
}

// swept tells whether rep holds more than one configuration of a system in
// a scenario variant, or a system's own configuration: a sweep to show.
func swept(order []runCfg) bool {
	n := map[key]int{}
	for _, c := range order {
		n[c.key()]++
		if n[c.key()] > 1 || c.config != "" {
			return true
		}
	}
	return false
}

// writeSweep writes the sweep section of the markdown report: per scenario
// variant, every configuration of every system (medians), the best marked,
// then the best-vs-best table. Nothing when rep is not a sweep.
func writeSweep(w func(string, ...any), rep *Report) {
	by, order := aggregateConfigs(rep)
	if !swept(order) {
		return
	}
	best := bestConfigs(by, order)
	w("### Sweep: every configuration\n\n")
	w("Each system at every worker count × pool size of the sweep (medians of the repeats)")
	if slices.ContainsFunc(order, func(c runCfg) bool { return c.config == "own" }) {
		w(",\nand River as its own bench command configures its client (`own`: 2,000 workers on pgxpool's default pool)")
	}
	w(".\n**Best** marks each system's best configuration: the highest jobs/s (burn-down, enqueue), or, at an offered\n")
	w("rate, the lowest p99 among the configurations that kept up (completed ≥ %.0f%% of the inserted rate). The tables\n", keptUp*100)
	w("above and the ratios below compare each system at its best, from the same set of runs.\n\n")
	for _, sv := range scenarioVariants(keysOf(order)) {
		w("%s %s:\n\n", sv.scenario, sv.variant)
		w("| system | configuration | runs | %s | p50 ms | p99 ms | WAL/job | |\n|---|---|--:|--:|--:|--:|--:|---|\n", unit(sv.scenario))
		for _, c := range order {
			if c.scenario != sv.scenario || c.variant != sv.variant {
				continue
			}
			a, mark := by[c], ""
			if best[c.key()] == c {
				mark = "**best**"
			}
			p50, p99 := "–", "–"
			if offeredRate(c.scenario) {
				p50, p99 = fmt.Sprintf("%.2f", a.p50), fmt.Sprintf("%.2f", a.p99)
			}
			w("| %s | %s | %d | %s | %s | %s | %s B | %s |\n", c.system, c.label(), len(a.runs), num(a.perSec), p50, p99,
				num(a.walPerJob), mark)
		}
		w("\n")
	}
	w("Best vs best:\n\n| scenario | variant | awa best | awa | River best | River | awa/River |\n|---|---|---|--:|---|--:|--:|\n")
	for _, sv := range scenarioVariants(keysOf(order)) {
		a, aok := best[key{sv.scenario, sv.variant, "awa"}]
		r, rok := best[key{sv.scenario, sv.variant, "river"}]
		if !aok || !rok {
			continue
		}
		fig := func(c runCfg) float64 { return by[c].perSec }
		rat := ratio(fig(a), fig(r))
		if offeredRate(sv.scenario) {
			fig = func(c runCfg) float64 { return by[c].p99 }
			rat = ratio(fig(r), fig(a)) + " (River p99 / awa p99)"
		}
		w("| %s | %s | %s | %s | %s | %s | **%s** |\n", sv.scenario, sv.variant, a.label(), num(fig(a)), r.label(),
			num(fig(r)), rat)
	}
	w("\n")
}

// keysOf drops the configurations of order to their (scenario, variant,
// system) keys.
func keysOf(order []runCfg) []key {
	ks := make([]key, len(order))
	for i, c := range order {
		ks[i] = c.key()
	}
	return ks
}

// printBest prints each system's best configuration per scenario variant,
// when rep is a sweep.
func printBest(w io.Writer, rep *Report) {
	by, order := aggregateConfigs(rep)
	if !swept(order) {
		return
	}
	best := bestConfigs(by, order)
	fmt.Fprintln(w, "\nbest configurations (the medians above are theirs):")
	seen := map[key]bool{}
	for _, c := range order {
		b := best[c.key()]
		if seen[c.key()] {
			continue
		}
		seen[c.key()] = true
		fmt.Fprintf(w, "  %-8s %-16s %-6s %s: %s %s\n", c.scenario, c.variant, c.system, b.label(), num(by[b].perSec),
			unit(c.scenario))
	}
}

// Source is a results file a merged report was made from.
type Source struct {
	Command   string    `json:"command"`
	StartedAt time.Time `json:"started_at"`
	AwaSource string    `json:"awa_source"`
	Runs      int       `json:"runs"`
}

// Merge combines reports (each scenario run apart, for instance) into one:
// every run of each, in the order given; the machine and server of the first;
// its config, with the systems, scenarios, sweep lists and client settings
// of all, and the sizes of a scenario from the first report that ran it.
// MergedFrom records each report's command.
func Merge(reps ...*Report) (*Report, error) {
	if len(reps) == 0 {
		return nil, errors.New("merge: no results")
	}
	m := *reps[0]
	m.Runs, m.MergedFrom, m.ClientConfs = nil, nil, map[string]map[string]string{}
	m.Config.Systems, m.Config.Scenarios = nil, nil
	m.Config.WorkerList, m.Config.ConnList = nil, nil
	for i, r := range reps {
		if r.River != "" && m.River != "" && r.River != m.River {
			return nil, fmt.Errorf("merge: River %s and %s in one report", m.River, r.River)
		}
		if r.StartedAt.Before(m.StartedAt) {
			m.StartedAt = r.StartedAt
		}
		if r.FinishedAt.After(m.FinishedAt) {
			m.FinishedAt = r.FinishedAt
		}
		m.Quick = m.Quick || r.Quick
		m.Runs = append(m.Runs, r.Runs...)
		m.MergedFrom = append(m.MergedFrom, Source{r.Command, r.StartedAt, r.Source, len(r.Runs)})
		c := r.Config
		m.Config.Systems = union(m.Config.Systems, c.Systems)
		m.Config.Scenarios = union(m.Config.Scenarios, c.Scenarios)
		m.Config.WorkerList = union(m.Config.WorkerList, orOne(c.WorkerList, c.Workers))
		m.Config.ConnList = union(m.Config.ConnList, orOne(c.ConnList, c.Conns))
		for k, v := range r.ClientConfs {
			if _, ok := m.ClientConfs[k]; !ok {
				m.ClientConfs[k] = v
			}
		}
		// The sizes of a scenario come from the first report that ran it.
		first := func(sc string) bool { return i > 0 && slices.Contains(c.Scenarios, sc) && !ranIn(reps[:i], sc) }
		if first("burndown") {
			m.Config.Jobs = c.Jobs
		}
		if first("rate") {
			m.Config.Rates, m.Config.RateDuration, m.Config.RateWarmup = c.Rates, c.RateDuration, c.RateWarmup
		}
		if first("pinned") {
			m.Config.PinnedRate, m.Config.PinnedDuration = c.PinnedRate, c.PinnedDuration
		}
		if first("mixed") {
			m.Config.MixedRate, m.Config.MixedDuration = c.MixedRate, c.MixedDuration
			m.Config.MixedDelay, m.Config.MixedWork = c.MixedDelay, c.MixedWork
		}
		if first("enqueue") {
			m.Config.EnqueueDuration, m.Config.EnqueueProds, m.Config.BulkBatch, m.Config.BulkProds = c.EnqueueDuration, c.EnqueueProds, c.BulkBatch, c.BulkProds
		}
	}
	m.Config.Workers, m.Config.Conns = m.Config.WorkerList[0], m.Config.ConnList[0]
	if len(m.Config.WorkerList)+len(m.Config.ConnList) <= 2 {
		m.Config.WorkerList, m.Config.ConnList = nil, nil
	}
	return &m, nil
}

// ranIn tells whether one of reps ran scenario sc.
func ranIn(reps []*Report, sc string) bool {
	return slices.ContainsFunc(reps, func(r *Report) bool { return slices.Contains(r.Config.Scenarios, sc) })
}

// union appends to a the values of b it lacks, in order.
func union[T comparable](a, b []T) []T {
	for _, v := range b {
		if !slices.Contains(a, v) {
			a = append(a, v)
		}
	}
	return a
}

// orOne is list, or the single value v when list is empty.
func orOne(list []int, v int) []int {
	if len(list) == 0 {
		return []int{v}
	}
	return list
}

// sweepHowTo is the markdown report's "How to run the sweep" section: the
// same in every report (the bench writes it, so it survives a rewrite).
const sweepHowTo = "## How to run the sweep\n\n" +
	"Each system is compared at its best: `-workers` and `-conns` take comma-separated lists, and every scenario but\n" +
	"enqueue runs at each workers × conns pair (`-repeat N` times each; the JSON keeps every run). `-river-config both`\n" +
	"adds River as its own `river bench` configures its client (2,000 workers, pgxpool's default pool; `own` runs only\n" +
	"that). The report shows the whole sweep, marks each system's best configuration and quotes best-vs-best ratios.\n" +
	"Each scenario can run alone, sized for a working session, and the results files merge into one report:\n\n" +
	"```sh\n" +
	"make bench BENCH_FLAGS='-scenario burndown -workers 50,100,500,2000 -conns 20,100 -river-config both -repeat 3 -out bench/results/burndown.json -md \"\"'\n" +
	"make bench BENCH_FLAGS='-scenario rate -workers 100,500 -river-config both -repeat 3 -out bench/results/rate.json -md \"\"'\n" +
	"make bench BENCH_FLAGS='-scenario mixed -mixed-rate 800 -workers 100,500 -river-config both -repeat 3 -out bench/results/mixed.json -md \"\"'\n" +
	"make bench BENCH_FLAGS='-scenario enqueue -repeat 3 -out bench/results/enqueue.json -md \"\"'\n" +
	"# bulk enqueue from several producers at once (each its own connection), both systems: variants \"bulk 10000 x2\" ...\n" +
	"make bench BENCH_FLAGS='-scenario enqueue -bulk-producers 1,2,4 -repeat 3 -out bench/results/enqueue.json -md \"\"'\n" +
	"# then, running nothing: one JSON and this report from all of them\n" +
	".bin/awa-bench -merge bench/results/burndown.json,bench/results/rate.json,bench/results/mixed.json,bench/results/enqueue.json \\\n" +
	"  -out bench/results/latest.json -md docs/benchmarks.md\n" +
	"```\n\n" +
	"The mixed scenario (`-scenario mixed`, not part of `all`): producers at `-mixed-rate` jobs/s, a `-mixed-work` (1 ms)\n" +
	"handler, one job in 20 failing its first attempt (retried by the system's own backoff), one in 20 scheduled\n" +
	"`-mixed-delay` (3 s) ahead, maintenance on.\n\n" +
	"The scale scenarios (not part of `all`; numbers and analysis in docs/scaling.md): `-scenario backlog -backlogs\n" +
	"100000,10000000 -backlog-work 100000` pre-inserts each backlog through the bulk path, works its first\n" +
	"`-backlog-work` jobs and reports jobs/s, the claim statement's mean, spread and buffers per call, the database size\n" +
	"and, for awa, what carrying the rest of the backlog out of its queue-ring slot costs per job (time, WAL);\n" +
	"`-scenario queues -queue-counts 100,1000,10000` (awa) puts jobs in N queues and times the first and a later insert\n" +
	"into a queue, a claim, `queue_counts()` and each call of a maintenance tick.\n\n"
