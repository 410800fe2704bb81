package benchkit

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Options configure one benchmark invocation (see Execute). RegisterFlags
// binds most of them to command-line flags.
type Options struct {
	// DSN is the server DSN of a role that can create databases: every run
	// gets a fresh database on that server.
	DSN string
	// DBPrefix names the run databases <DBPrefix>_<system>_<scenario>.
	// Defaults to "bench".
	DBPrefix string
	// Command is the command line, recorded in the report.
	Command string

	Scenarios        []string // burndown, rate, pinned, mixed, enqueue; in this order of running
	Quick            bool
	Jobs             int // burn-down jobs
	Workers          int // the first of WorkerList
	Conns            int // max connections of the worker client's pool: the first of ConnList
	Rates            []float64
	RateDuration     time.Duration
	RateWarmup       time.Duration
	PinnedRate       float64       // offered rate of the pinned-horizon run
	PinnedDuration   time.Duration // its measured window, all of it under the held snapshot
	Producers        int           // goroutines of rate runs
	EnqueueDuration  time.Duration
	EnqueueProducers []int // goroutines of the single-row enqueue runs
	BulkBatch        int
	BulkProducers    []int // goroutines of the bulk enqueue runs, each its own transactions
	Repeat           int
	Profile          bool
	Keep             bool
	Timeout          time.Duration // burn-down time limit
	AwaSQL           string        // file run after awa's migrations
	// AwaMaintenance is the worker client's maintenance: "default", "off",
	// or a duration every maintenance service runs at (-awa-maintenance).
	AwaMaintenance string
	// AwaArchive is awa's history retention: "default" (the install's:
	// completed 24 h, failed and cancelled 7 days) or "off" (0: not archived)
	// (-awa-archive).
	AwaArchive string
	// AwaOtel is the awa clients' OpenTelemetry setting: noop, off or sdk
	// (-awa-otel; AwaSystem.SetOtel).
	AwaOtel string
	// AwaFetchBatch is the awa worker client's FetchBatchSize (-awa-fetch-batch;
	// 0: the driver's default).
	AwaFetchBatch int
	// Parked and Long are the jobs an awa burn-down, rate or pinned run holds
	// in HeldQueue through its measured phase (-parked, -long): parked
	// (waiting_external) and long attempts held open.
	Parked, Long int
	// BacklogSlots spreads an awa burn-down's pre-inserted backlog over this
	// many queue-ring slots (the ring rotated between pre-insert batches), as
	// a backlog built up over time is: its older slots drain first and can be
	// pruned during the run (-awa-backlog-slots; 1, the default, keeps it in one).
	BacklogSlots int

	// WorkerList and ConnList are the sweep (-workers, -conns): every
	// scenario but enqueue runs once (times Repeat) at each pair of them.
	WorkerList, ConnList []int
	// MixedRate, MixedDuration, MixedDelay and MixedWork size the mixed
	// scenario (mixSpec).
	MixedRate     float64
	MixedDuration time.Duration
	MixedDelay    time.Duration
	MixedWork     time.Duration
	// Backlogs and BacklogWork size the backlog scenario: one run per
	// backlog, each working its first BacklogWork jobs.
	Backlogs    []int
	BacklogWork int
	// QueueCounts are the queues scenario's queue counts (one run each).
	QueueCounts []int
}

// Flags holds the flags RegisterFlags defined, until Options reads them.
type Flags struct {
	fs                              *flag.FlagSet
	scenario, rates, enqProds       *string
	bulkProds                       *string
	workers, conns                  *string
	jobs, producers                 *int
	mixedRate                       *float64
	mixedDur, mixedDelay, mixedWork *time.Duration
	bulkBatch, repeat               *int
	quick, profile, keep            *bool
	rateDur, rateWarm, enqDur       *time.Duration
	pinnedDur                       *time.Duration
	pinnedRate                      *float64
	timeout                         *time.Duration
	awaSQL, awaMaint, awaArchive    *string
	awaOtel                         *string
	awaFetchBatch                   *int
	parked, long, backlogSlots      *int
	backlogs                        *string
	backlogWork                     *int
	queueCounts                     *string
}

// RegisterFlags defines on fs the flags every bench command shares: the
// scenarios and their sizes. The server (-dsn) and the outputs are the
// caller's.
func RegisterFlags(fs *flag.FlagSet) *Flags {
	return &Flags{
		fs: fs,
		scenario: fs.String("scenario", "all", "burndown, rate, pinned, mixed, backlog, queues, enqueue or all (comma-separated list "+
			"allowed; all is burndown, rate, pinned and enqueue)"),
		backlogs:    fs.String("backlogs", "100000,10000000", "backlog: pre-inserted backlogs, comma-separated (one run each)"),
		queueCounts: fs.String("queue-counts", "100,1000,10000", "queues (awa only): queue counts, comma-separated (one run each)"),
		backlogWork: fs.Int("backlog-work", 200_000, "backlog: jobs worked from the top of each backlog (the measured phase)"),
		jobs:        fs.Int("jobs", 1_000_000, "burn-down: jobs pre-inserted then worked"),
		quick:       fs.Bool("quick", false, "short mode: 100k burn-down, short rate and enqueue runs (under 3 minutes)"),
		workers: fs.String("workers", "100", "worker count (MaxWorkers) of each system; a comma-separated list "+
			"sweeps it (e.g. 50,100,500,2000): each scenario but enqueue runs at every workers × conns pair"),
		conns: fs.String("conns", "20", "max connections of the worker client's pool (each system); a "+
			"comma-separated list sweeps it like -workers"),
		mixedRate: fs.Float64("mixed-rate", 800, "mixed: offered rate in jobs/s (1 ms handler, 5% retried once, "+
			"5% scheduled -mixed-delay ahead)"),
		mixedDur:   fs.Duration("mixed-duration", 30*time.Second, "mixed: measured window (after -rate-warmup)"),
		mixedDelay: fs.Duration("mixed-delay", 3*time.Second, "mixed: how far ahead the scheduled jobs are due"),
		mixedWork:  fs.Duration("mixed-work", time.Millisecond, "mixed: each attempt's handler time"),
		rates:      fs.String("rates", "800,5000", "offered rates in jobs/s, comma-separated"),
		rateDur:    fs.Duration("rate-duration", 30*time.Second, "measured window of each rate run"),
		rateWarm:   fs.Duration("rate-warmup", 5*time.Second, "warm-up before each rate window"),
		producers:  fs.Int("producers", 4, "producer goroutines of rate runs"),
		pinnedRate: fs.Float64("pinned-rate", 800,
			"pinned: offered rate in jobs/s while an idle session holds a REPEATABLE READ snapshot"),
		pinnedDur: fs.Duration("pinned-duration", 10*time.Minute, "pinned: measured window, all of it under the held snapshot"),
		enqDur:    fs.Duration("enqueue-duration", 10*time.Second, "duration of each enqueue run"),
		enqProds:  fs.String("enqueue-producers", "1,8", "producer goroutines of the single-row enqueue runs"),
		bulkProds: fs.String("bulk-producers", "1", "producer goroutines of the bulk enqueue runs (comma-separated list: one run each), "+
			"each inserting -bulk-batch jobs per transaction on its own connection"),
		bulkBatch: fs.Int("bulk-batch", 10_000, "jobs per bulk enqueue transaction"),
		repeat:    fs.Int("repeat", 1, "runs per system and scenario; the report quotes medians"),
		profile:   fs.Bool("profile", false, "also track nested statements and PL/pgSQL functions (adds overhead to each system)"),
		keep:      fs.Bool("keep", false, "keep the run databases"),
		timeout:   fs.Duration("timeout", 30*time.Minute, "burn-down time limit"),
		awaSQL:    fs.String("awa-sql", "", "experiment: SQL file run after awa's migrations (e.g. a patched function); the report flags it"),
		awaMaint: fs.String("awa-maintenance", "default", "awa's maintenance: default, off, or an interval (e.g. 1s) "+
			"every maintenance service (promotion, rescues, ring rotate+prune) runs at, keeping no sealed queue slot"),
		awaArchive: fs.String("awa-archive", "default", "awa's history retention: default (completed 24 h, failed and "+
			"cancelled 7 days: queue-ring prune copies terminal jobs to the archive) or off (nothing archived)"),
		awaFetchBatch: fs.Int("awa-fetch-batch", 0, "awa's worker client FetchBatchSize: jobs claimed per call "+
			"(0: the driver's default)"),
		awaOtel: fs.String("awa-otel", "noop", "awa's OpenTelemetry: noop (the global providers, never set: what a service "+
			"that sets none gets), off (no-op providers: no instrumentation at all) or sdk (SDK meter and tracer providers, "+
			"every span sampled, exported to nowhere)"),
		backlogSlots: fs.Int("awa-backlog-slots", 1, "burndown, awa: queue-ring slots the pre-inserted backlog is spread "+
			"over (rotated between its 100,000-job batches; 1 to 16), so older slots drain and can be pruned during the run"),
		parked: fs.Int("parked", 0, "burndown, rate and pinned, awa only: jobs parked (waiting_external) in queue "+HeldQueue+
			" before the measured phase, checked still parked after it"),
		long: fs.Int("long", 0, "burndown, rate and pinned, awa only: attempts of queue "+HeldQueue+
			" held open through the measured phase (process heartbeat, progress and a callback now and then; "+
			"a fresh attempt registering a callback every tick), completed after it"),
	}
}

// Options returns the parsed flags: -quick shortens what was not given
// explicitly, and the lists and counts are checked. DSN, DBPrefix and Command are left
// to the caller.
func (f *Flags) Options() (Options, error) {
	o := Options{
		Quick: *f.quick, Jobs: *f.jobs,
		MixedRate: *f.mixedRate, MixedDuration: *f.mixedDur, MixedDelay: *f.mixedDelay, MixedWork: *f.mixedWork,
		RateDuration: *f.rateDur, RateWarmup: *f.rateWarm, Producers: *f.producers,
		PinnedRate: *f.pinnedRate, PinnedDuration: *f.pinnedDur,
		EnqueueDuration: *f.enqDur, BulkBatch: *f.bulkBatch, Repeat: *f.repeat,
		Profile: *f.profile, Keep: *f.keep, Timeout: *f.timeout, AwaSQL: *f.awaSQL,
		AwaMaintenance: *f.awaMaint, AwaArchive: *f.awaArchive, AwaOtel: *f.awaOtel, AwaFetchBatch: *f.awaFetchBatch, Parked: *f.parked, Long: *f.long,
		BacklogSlots: *f.backlogSlots, BacklogWork: *f.backlogWork,
	}
	if o.BacklogSlots < 1 || o.BacklogSlots > 16 {
		return o, fmt.Errorf("-awa-backlog-slots: want 1 to 16, got %d", o.BacklogSlots)
	}
	if o.AwaArchive != "default" && o.AwaArchive != "off" {
		return o, fmt.Errorf("-awa-archive: want default or off, got %q", o.AwaArchive)
	}
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if o.Quick {
		if !set["jobs"] {
			o.Jobs = 100_000
		}
		if !set["rate-duration"] {
			o.RateDuration = 8 * time.Second
		}
		if !set["rate-warmup"] {
			o.RateWarmup = 2 * time.Second
		}
		if !set["pinned-duration"] {
			o.PinnedDuration = 30 * time.Second
		}
		if !set["enqueue-duration"] {
			o.EnqueueDuration = 3 * time.Second
		}
		if !set["mixed-duration"] {
			o.MixedDuration = 8 * time.Second
		}
	}
	o.Scenarios = strings.Split(*f.scenario, ",")
	if *f.scenario == "all" {
		o.Scenarios = []string{"burndown", "rate", "pinned", "enqueue"}
	}
	for _, s := range o.Scenarios {
		if s != "burndown" && s != "rate" && s != "pinned" && s != "mixed" && s != "backlog" && s != "queues" && s != "enqueue" {
			return o, fmt.Errorf("-scenario: unknown %q", s)
		}
	}
	var err error
	if o.WorkerList, err = sweepList(*f.workers); err != nil {
		return o, fmt.Errorf("-workers: %w", err)
	}
	if o.ConnList, err = sweepList(*f.conns); err != nil {
		return o, fmt.Errorf("-conns: %w", err)
	}
	o.Workers, o.Conns = o.WorkerList[0], o.ConnList[0]
	if o.MixedRate <= 0 || o.MixedDuration <= 0 || o.MixedDelay <= 0 || o.MixedWork < 0 {
		return o, errors.New("-mixed-rate, -mixed-duration and -mixed-delay must be positive, -mixed-work not negative")
	}
	if o.Rates, err = positives(*f.rates, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }); err != nil {
		return o, fmt.Errorf("-rates: %w", err)
	}
	if o.QueueCounts, err = positives(*f.queueCounts, strconv.Atoi); err != nil {
		return o, fmt.Errorf("-queue-counts: %w", err)
	}
	if o.Backlogs, err = positives(*f.backlogs, strconv.Atoi); err != nil {
		return o, fmt.Errorf("-backlogs: %w", err)
	}
	for _, b := range o.Backlogs {
		if !slices.Contains(o.Scenarios, "backlog") {
			break
		}
		if o.BacklogWork < 1 || o.BacklogWork > b {
			return o, fmt.Errorf("-backlog-work: want 1 to the smallest backlog (%d), got %d", b, o.BacklogWork)
		}
	}
	if o.EnqueueProducers, err = positives(*f.enqProds, strconv.Atoi); err != nil {
		return o, fmt.Errorf("-enqueue-producers: %w", err)
	}
	if o.BulkProducers, err = positives(*f.bulkProds, strconv.Atoi); err != nil {
		return o, fmt.Errorf("-bulk-producers: %w", err)
	}
	if *f.pinnedRate <= 0 || *f.pinnedDur <= 0 {
		return o, errors.New("-pinned-rate and -pinned-duration must be positive")
	}
	for _, c := range []struct {
		name  string
		value int
	}{{"jobs", o.Jobs}, {"producers", o.Producers},
		{"bulk-batch", o.BulkBatch}, {"repeat", o.Repeat}} {
		if c.value < 1 {
			return o, fmt.Errorf("-%s must be at least 1", c.name)
		}
	}
	if o.Parked < 0 || o.Long < 0 {
		return o, errors.New("-parked and -long must not be negative")
	}
	return o, nil
}

// positives parses a comma-separated list of positive numbers.
func positives[T int | float64](s string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, f := range strings.Split(s, ",") {
		v, err := parse(strings.TrimSpace(f))
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("bad value %q", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// sweepList parses a -workers or -conns list: positive counts, each once, in
// the order given.
func sweepList(s string) ([]int, error) {
	vs, err := positives(s, strconv.Atoi)
	if err != nil {
		return nil, err
	}
	seen := map[int]bool{}
	for _, v := range vs {
		if seen[v] {
			return nil, fmt.Errorf("%d given twice", v)
		}
		seen[v] = true
	}
	return vs, nil
}
