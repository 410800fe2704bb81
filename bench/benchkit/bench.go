// Package benchkit is the benchmark harness of the bench command (bench/,
// awa alone or awa vs River) and the awa system the portable-bench adapter
// (bench/adapter) runs: burn-down throughput, latency at an offered rate and
// enqueue speed, with WAL, table churn and size, wait events and
// pg_stat_statements for every run. Its SQL is its own: the bench is an
// instrument, not the product, so the rule of queries/ is not for it.
//
// Every run gets a fresh database (CREATE DATABASE on the server of
// Options.DSN, the system's schema installed by System.Migrate), the same
// no-op handler, the same worker count and the same load generator.
package benchkit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Report is what a bench invocation writes as JSON.
type Report struct {
	StartedAt   time.Time                    `json:"started_at"`
	FinishedAt  time.Time                    `json:"finished_at"`
	Command     string                       `json:"command"`
	Quick       bool                         `json:"quick"`
	Source      string                       `json:"awa_source"`
	River       string                       `json:"river_version,omitempty"` // set by the comparison (bench/)
	Config      Config                       `json:"config"`
	Machine     Machine                      `json:"machine"`
	Postgres    PGInfo                       `json:"postgres"`
	ClientConfs map[string]map[string]string `json:"client_settings"`
	Runs        []*Run                       `json:"runs"`
	// MergedFrom lists the results files a merged report combines (Merge).
	MergedFrom []Source `json:"merged_from,omitempty"`
}

// Config is the resolved options, as the report records them.
type Config struct {
	Systems         []string  `json:"systems"`
	Scenarios       []string  `json:"scenarios"`
	Jobs            int       `json:"burndown_jobs"`
	Workers         int       `json:"workers"`
	Conns           int       `json:"pool_max_conns"`
	WorkerList      []int     `json:"workers_sweep,omitempty"`
	ConnList        []int     `json:"pool_max_conns_sweep,omitempty"`
	MixedRate       float64   `json:"mixed_rate,omitempty"`
	MixedDuration   string    `json:"mixed_duration,omitempty"`
	MixedDelay      string    `json:"mixed_delay,omitempty"`
	MixedWork       string    `json:"mixed_work,omitempty"`
	Rates           []float64 `json:"rates"`
	RateDuration    string    `json:"rate_duration"`
	RateWarmup      string    `json:"rate_warmup"`
	Producers       int       `json:"rate_producers"`
	PinnedRate      float64   `json:"pinned_rate,omitempty"`
	PinnedDuration  string    `json:"pinned_duration,omitempty"`
	EnqueueDuration string    `json:"enqueue_duration"`
	EnqueueProds    []int     `json:"enqueue_producers"`
	BulkBatch       int       `json:"bulk_batch"`
	BulkProds       []int     `json:"bulk_producers,omitempty"`
	Repeat          int       `json:"repeat"`
	Profile         bool      `json:"profile"`
	AwaSQL          string    `json:"awa_sql,omitempty"`
	Parked          int       `json:"held_parked,omitempty"`
	Long            int       `json:"held_long,omitempty"`
}

// Execute runs every scenario of o for every system, printing a header and a
// line per run to con, and returns the report. A failed run is recorded in its
// Run.Error and the others go on; an error is returned only when nothing can
// run (no server) or ctx ends.
func Execute(ctx context.Context, o Options, systems []System, con *Console) (*Report, error) {
	if o.DBPrefix == "" {
		o.DBPrefix = "bench"
	}
	rep := &Report{
		StartedAt: time.Now().UTC(), Command: o.Command,
		Quick: o.Quick, Machine: machineInfo(), ClientConfs: map[string]map[string]string{},
		Config: Config{Scenarios: o.Scenarios, Jobs: o.Jobs, Workers: o.Workers, Conns: o.Conns, Rates: o.Rates,
			RateDuration: o.RateDuration.String(), RateWarmup: o.RateWarmup.String(), Producers: o.Producers,
			EnqueueDuration: o.EnqueueDuration.String(), EnqueueProds: o.EnqueueProducers, BulkBatch: o.BulkBatch,
			BulkProds: o.BulkProducers, Repeat: o.Repeat, Profile: o.Profile, AwaSQL: o.AwaSQL, Parked: o.Parked, Long: o.Long},
	}
	for _, sc := range o.Scenarios {
		if sc == "pinned" {
			rep.Config.PinnedRate, rep.Config.PinnedDuration = o.PinnedRate, o.PinnedDuration.String()
		}
		if sc == "mixed" {
			rep.Config.MixedRate, rep.Config.MixedDuration = o.MixedRate, o.MixedDuration.String()
			rep.Config.MixedDelay, rep.Config.MixedWork = o.MixedDelay.String(), o.MixedWork.String()
		}
	}
	if len(o.WorkerList)+len(o.ConnList) > 2 {
		rep.Config.WorkerList, rep.Config.ConnList = o.WorkerList, o.ConnList
	}
	for _, s := range systems {
		if !slices.Contains(rep.Config.Systems, s.Name()) {
			rep.Config.Systems = append(rep.Config.Systems, s.Name())
		}
		w := o.Workers
		if f, ok := s.(Fixed); ok {
			w, _ = f.Fixed()
		}
		rep.ClientConfs[settingsKey(s)] = s.Settings(w)
	}
	rep.Source = SourceState()
	admin, err := pgx.Connect(ctx, o.DSN)
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", o.DSN, err)
	}
	rep.Postgres, err = pgInfo(ctx, admin)
	admin.Close(context.Background())
	if err != nil {
		return nil, err
	}
	if !rep.Postgres.StatStatements {
		con.logf("pg_stat_statements is not loaded (shared_preload_libraries): no statement profile")
	}
	e := &env{adminDSN: o.DSN, dbPrefix: o.DBPrefix, statements: rep.Postgres.StatStatements, profile: o.Profile,
		keep: o.Keep, conns: o.Conns, workers: o.Workers, con: con, timeout: o.Timeout,
		parked: o.Parked, long: o.Long, backlogSlots: o.BacklogSlots}

	PrintHeader(con.Out, rep)
	// Systems alternate within each scenario and the order flips on every
	// repeat and every point of the sweep, so slow drifts of a shared machine
	// hit them alike.
	type job struct {
		scenario, variant string
		do                func(e *env, s System, r *Run) error
	}
	var jobs []job
	// Held jobs (-parked, -long) name themselves in the variants of the runs
	// that hold them.
	held := ""
	if o.Parked+o.Long > 0 {
		held = fmt.Sprintf(", %d parked, %d long", o.Parked, o.Long)
	}
	if o.AwaArchive == "off" {
		held += ", archive off"
	}
	if o.BacklogSlots > 1 {
		held += fmt.Sprintf(", backlog over %d slots", o.BacklogSlots)
	}
	if o.AwaOtel != "" && o.AwaOtel != "noop" {
		held += ", otel " + o.AwaOtel
	}
	if o.AwaFetchBatch > 0 {
		held += fmt.Sprintf(", fetch batch %d", o.AwaFetchBatch)
	}
	for _, sc := range o.Scenarios {
		switch sc {
		case "burndown":
			jobs = append(jobs, job{"burndown", fmt.Sprintf("%d jobs", o.Jobs) + held, func(e *env, s System, r *Run) error {
				return burndown(ctx, e, s, o.Jobs, r)
			}})
		case "rate":
			for _, rt := range o.Rates {
				jobs = append(jobs, job{"rate", fmt.Sprintf("%g/s", rt) + held, func(e *env, s System, r *Run) error {
					return rateRun(ctx, e, s, rt, o.RateWarmup, o.RateDuration, o.Producers, false, r, nil)
				}})
			}
		case "pinned":
			jobs = append(jobs, job{"pinned", fmt.Sprintf("%g/s", o.PinnedRate) + held, func(e *env, s System, r *Run) error {
				return rateRun(ctx, e, s, o.PinnedRate, o.RateWarmup, o.PinnedDuration, o.Producers, true, r, nil)
			}})
		case "mixed":
			jobs = append(jobs, job{"mixed", fmt.Sprintf("%g/s", o.MixedRate) + held, func(e *env, s System, r *Run) error {
				return rateRun(ctx, e, s, o.MixedRate, o.RateWarmup, o.MixedDuration, o.Producers, false, r,
					newMixSpec(o.MixedDelay, o.MixedWork))
			}})
		case "backlog":
			for _, b := range o.Backlogs {
				jobs = append(jobs, job{"backlog", fmt.Sprintf("%d of %d jobs", o.BacklogWork, b) + held,
					func(e *env, s System, r *Run) error { return backlogRun(ctx, e, s, b, o.BacklogWork, r) }})
			}
		case "queues":
			for _, n := range o.QueueCounts {
				jobs = append(jobs, job{"queues", fmt.Sprintf("%d queues", n),
					func(e *env, s System, r *Run) error { return queuesRun(ctx, e, s, n, r) }})
			}
		case "enqueue":
			for _, p := range o.EnqueueProducers {
				jobs = append(jobs, job{"enqueue", fmt.Sprintf("single x%d", p), func(e *env, s System, r *Run) error {
					return enqueueRun(ctx, e, s, "single", p, 1, o.EnqueueDuration, r)
				}})
			}
			for _, p := range o.BulkProducers {
				// One producer keeps the variant's old name, so earlier results merge.
				v := fmt.Sprintf("bulk %d", o.BulkBatch)
				if p > 1 {
					v += fmt.Sprintf(" x%d", p)
				}
				jobs = append(jobs, job{"enqueue", v, func(e *env, s System, r *Run) error {
					return enqueueRun(ctx, e, s, "bulk", p, o.BulkBatch, o.EnqueueDuration, r)
				}})
			}
		}
	}
	for _, j := range jobs {
		for ci, c := range runConfigs(j.scenario, o, systems) {
			for rp := 0; rp < o.Repeat; rp++ {
				// The order flips on every repeat and every point of the sweep.
				order := slices.Clone(c.systems)
				if (ci+rp)%2 == 1 {
					slices.Reverse(order)
				}
				for _, s := range order {
					if ctx.Err() != nil {
						return nil, ctx.Err()
					}
					r := &Run{System: s.Name(), Scenario: j.scenario, Variant: j.variant, Repeat: rp + 1}
					re := *e
					if j.scenario != "enqueue" {
						r.Workers, r.Conns, re.workers, re.conns = c.workers, c.conns, c.workers, c.conns
					}
					if f, ok := s.(Fixed); ok {
						r.Config = f.Config()
					}
					if err := j.do(&re, s, r); err != nil {
						r.Error = err.Error()
						con.logf("%s %s %s: %v", s.Name(), j.scenario, j.variant, err)
					}
					con.ClearProgress()
					PrintRun(con.Out, r)
					rep.Runs = append(rep.Runs, r)
				}
			}
		}
	}
	rep.FinishedAt = time.Now().UTC()
	con.ClearProgress()
	return rep, nil
}

// runConfig is one point of the sweep and the systems that run at it.
type runConfig struct {
	workers, conns int
	systems        []System
}

// runConfigs are the points a scenario runs at: enqueue (no workers) once, at
// the first workers and conns; the others at every workers × conns pair of
// the sweep, in the order given, and a Fixed system at its own point only,
// after them.
func runConfigs(scenario string, o Options, systems []System) []runConfig {
	var swept, fixed []System
	for _, s := range systems {
		if _, ok := s.(Fixed); ok {
			fixed = append(fixed, s)
		} else {
			swept = append(swept, s)
		}
	}
	var out []runConfig
	if scenario == "enqueue" {
		return []runConfig{{o.Workers, o.Conns, systems}}
	}
	if len(swept) > 0 {
		for _, w := range o.WorkerList {
			for _, c := range o.ConnList {
				out = append(out, runConfig{w, c, swept})
			}
		}
		if len(out) == 0 {
			out = append(out, runConfig{o.Workers, o.Conns, swept})
		}
	}
	for _, s := range fixed {
		w, c := s.(Fixed).Fixed()
		out = append(out, runConfig{w, c, []System{s}})
	}
	return out
}

// settingsKey names a system's client settings in the report: its name, and
// its configuration's when it has one of its own.
func settingsKey(s System) string {
	if f, ok := s.(Fixed); ok {
		return s.Name() + " (" + f.Config() + ")"
	}
	return s.Name()
}

// SourceState names the awa source measured: HEAD of the git work tree the
// command runs in, and whether the tree differs from it.
func SourceState() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	s := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--", "sql", "db", "driver").Output(); err == nil && len(st) > 0 {
		s += " + uncommitted changes in sql/, db/ or driver/"
	}
	return s
}

// WriteJSON writes v, indented, to path, creating its directory.
func WriteJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Console is where an invocation writes: the header, run lines and summary
// to Out; log lines and one status line to Err. The status line is rewritten
// in place when Err is a terminal, and printed at most every 5 s otherwise.
type Console struct {
	Out, Err io.Writer
	tty      bool
	last     time.Time
	shown    bool
}

// NewConsole returns a console on out and errw.
func NewConsole(out, errw io.Writer) *Console {
	c := &Console{Out: out, Err: errw}
	if f, ok := errw.(*os.File); ok {
		fi, err := f.Stat()
		c.tty = err == nil && fi.Mode()&os.ModeCharDevice != 0
	}
	return c
}

func (c *Console) logf(format string, args ...any) {
	c.ClearProgress()
	fmt.Fprintf(c.Err, "bench: "+format+"\n", args...)
}

func (c *Console) progress(line string) {
	if c.tty {
		fmt.Fprintf(c.Err, "\r\033[K%s", line)
		c.shown = true
		return
	}
	if time.Since(c.last) >= 5*time.Second {
		fmt.Fprintf(c.Err, "  .. %s\n", line)
		c.last = time.Now()
	}
}

// ClearProgress erases the status line, if one is shown.
func (c *Console) ClearProgress() {
	if c.tty && c.shown {
		fmt.Fprint(c.Err, "\r\033[K")
		c.shown = false
	}
}
