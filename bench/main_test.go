package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/awa-queue/awa/bench/benchkit"
	"github.com/awa-queue/awa/internal/pgtest"
)

// TestBenchWritesEveryRun runs the bench for awa alone (-system awa) in
// process with every scenario at a tiny size against the AWA_TEST_DSN server: each run must succeed with
// figures in the JSON results, and its database must be gone afterwards.
func TestBenchWritesEveryRun(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	b := runBench(ctx, t, dsn, []string{"burndown", "rate", "enqueue"}, "-system", "awa", "-scenario", "burndown,rate,enqueue",
		"-jobs", "2000", "-workers", "10", "-conns", "6",
		"-rates", "200", "-rate-warmup", "500ms", "-rate-duration", "2s", "-producers", "2",
		"-enqueue-producers", "1", "-enqueue-duration", "1s", "-bulk-batch", "500")
	rep, out := b.rep, b.out
	if got := strings.Join(rep.Config.Systems, ","); got != "awa" {
		t.Errorf("systems %q, want awa alone", got)
	}
	if strings.Contains(rep.Command, dsn) {
		t.Errorf("the recorded command holds the DSN: %s", rep.Command)
	}
	want := []string{"burndown 2000 jobs", "rate 200/s", "enqueue single x1", "enqueue bulk 500"}
	var got []string
	for _, r := range rep.Runs {
		name := r.Scenario + " " + r.Variant
		got = append(got, name)
		if r.System != "awa" || r.Error != "" {
			t.Errorf("%s: system %q, error %q", name, r.System, r.Error)
		}
		if r.PerSecond <= 0 || r.Jobs <= 0 || r.WALPerJob <= 0 {
			t.Errorf("%s: %d jobs, %.1f per second, %.1f WAL bytes per job; want each > 0", name, r.Jobs, r.PerSecond, r.WALPerJob)
		}
		if len(r.Families) == 0 {
			t.Errorf("%s: no awa table statistics", name)
		}
		switch r.Scenario {
		case "burndown":
			if r.Jobs != 2000 || r.PreInsert == nil || r.PreInsert.Jobs != 2000 {
				t.Errorf("%s: worked %d jobs, pre-insert %+v; want 2000 each", name, r.Jobs, r.PreInsert)
			}
		case "rate":
			l := r.Latency
			if l == nil || l.Count == 0 || l.P50Ms <= 0 || l.P99Ms < l.P50Ms || l.MaxMs < l.P99Ms {
				t.Errorf("%s: insert-to-start latency %+v; want percentiles of the window's jobs", name, l)
			}
			if r.OfferedRate != 200 || r.AchievedInsert <= 0 {
				t.Errorf("%s: offered %g/s, achieved %g/s", name, r.OfferedRate, r.AchievedInsert)
			}
		}
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("runs %q, want %q", got, want)
	}

	// The summary has the awa column alone, without ratios.
	flat := strings.Join(strings.Fields(b.stdout), " ")
	for _, s := range []string{"scenario variant unit awa WAL/job awa", "burndown 2000 jobs jobs/s", "results: " + out} {
		if !strings.Contains(flat, s) {
			t.Errorf("output lacks %q", s)
		}
	}
	if strings.Contains(flat, "river") {
		t.Errorf("output mentions river")
	}

	// Without -keep every run database is dropped.
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var left []string
	if err := conn.QueryRow(ctx, "SELECT coalesce(array_agg(datname), '{}') FROM pg_database WHERE datname = ANY($1)",
		b.dbs).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("run databases left behind: %q", left)
	}
}

// TestBenchBurndownReportsTheJobsWholeLifeWAL: an awa burn-down reclaims the
// queue ring after its run and reports the WAL per job over the jobs' whole
// life (pre-insert, the run, the reclaim), with the archive on (the
// default: the reclaim copies every completed job to the archive, so it
// writes WAL) and off (named in the variant).
func TestBenchBurndownReportsTheJobsWholeLifeWAL(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	for _, archive := range []string{"default", "off"} {
		t.Run(archive, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			b := runBench(ctx, t, dsn, []string{"burndown"}, "-system", "awa", "-scenario", "burndown",
				"-jobs", "2000", "-workers", "10", "-conns", "6", "-awa-archive", archive)
			r := b.rep.Runs[0]
			want := "2000 jobs"
			if archive == "off" {
				want += ", archive off"
			}
			if r.Error != "" || r.Variant != want {
				t.Fatalf("run %q, error %q; want %q", r.Variant, r.Error, want)
			}
			life := float64(r.PreInsert.WALBytes+r.WALBytes+r.ReclaimWALBytes) / float64(r.Jobs)
			if r.ReclaimWALBytes <= 0 || r.LifeWALPerJob != life || r.LifeWALPerJob <= r.WALPerJob {
				t.Errorf("reclaim WAL %d B, life WAL/job %.1f (want %.1f, above the run's %.1f)", r.ReclaimWALBytes,
					r.LifeWALPerJob, life, r.WALPerJob)
			}
			if !strings.Contains(b.stdout, "life WAL/job ") {
				t.Errorf("the run line does not show the life WAL/job:\n%s", b.stdout)
			}
		})
	}
}

// TestBenchBurndownWithEachOtelSetting: a small awa burn-down runs with the
// clients' instrumentation off and with the OpenTelemetry SDK behind it,
// each named in its variant and in the client settings of the report.
func TestBenchBurndownWithEachOtelSetting(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	for _, mode := range []string{"off", "sdk"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			b := runBench(ctx, t, dsn, []string{"burndown"}, "-system", "awa", "-scenario", "burndown",
				"-jobs", "2000", "-workers", "10", "-conns", "6", "-awa-otel", mode)
			r := b.rep.Runs[0]
			if r.Error != "" || r.Jobs != 2000 || r.Variant != "2000 jobs, otel "+mode {
				t.Fatalf("run %q: %d jobs, error %q; want \"2000 jobs, otel %s\"", r.Variant, r.Jobs, r.Error, mode)
			}
			if got := b.rep.ClientConfs["awa"]["OpenTelemetry"]; !strings.HasPrefix(got, mode+" ") {
				t.Errorf("client settings: OpenTelemetry %q, want the %s setting", got, mode)
			}
		})
	}
}

// TestBenchBurndownSpreadsItsBacklogOverSlots: with -awa-backlog-slots 3 the
// pre-inserted backlog lies in three queue-ring slots (the ring turned
// between them), named in the variant; the older slots drain first, and the
// queue ring is pruned during the run.
func TestBenchBurndownSpreadsItsBacklogOverSlots(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	b := runBench(ctx, t, pgtest.DSN(t), []string{"burndown"}, "-system", "awa", "-scenario", "burndown",
		"-jobs", "3000", "-workers", "10", "-conns", "6", "-awa-backlog-slots", "3", "-awa-maintenance", "100ms")
	r := b.rep.Runs[0]
	if r.Error != "" || r.Variant != "3000 jobs, backlog over 3 slots" || r.Jobs != 3000 {
		t.Fatalf("run %q: %d jobs, error %q; want \"3000 jobs, backlog over 3 slots\"", r.Variant, r.Jobs, r.Error)
	}
	if r.Rings["queue"]["pruned"] < 1 {
		t.Errorf("queue ring outcomes %v: want a slot of the backlog pruned during the run", r.Rings["queue"])
	}
}

// TestBenchBurndownHoldsParkedAndLongJobs runs small awa burn-downs with
// -parked and -long (and -parked alone): the held jobs are set up before the
// measured phase, the long attempts kept open through it, and accounted for
// after it (each parked job still waiting with its token, each long attempt
// still open with its claim-time receipt, then completed once); the ring
// outcomes of the worker client's maintenance are counted in the JSON results
// and the output.
func TestBenchBurndownHoldsParkedAndLongJobs(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	for _, c := range []struct{ parked, long int }{{300, 5}, {40, 0}} {
		t.Run(fmt.Sprintf("parked_%d_long_%d", c.parked, c.long), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			b := runBench(ctx, t, dsn, []string{"burndown"}, "-system", "awa", "-scenario", "burndown",
				"-jobs", "3000", "-workers", "10", "-conns", "6", "-parked", fmt.Sprint(c.parked), "-long", fmt.Sprint(c.long),
				"-awa-maintenance", "100ms")
			rep := b.rep
			if rep.Config.Parked != c.parked || rep.Config.Long != c.long || len(rep.Runs) != 1 {
				t.Fatalf("config parked %d long %d, %d runs; want %d, %d, 1", rep.Config.Parked, rep.Config.Long, len(rep.Runs),
					c.parked, c.long)
			}
			r := rep.Runs[0]
			if want := fmt.Sprintf("3000 jobs, %d parked, %d long", c.parked, c.long); r.Error != "" || r.Variant != want || r.Jobs != 3000 {
				t.Fatalf("run %q: %d jobs, error %q; want %q, 3000 jobs", r.Variant, r.Jobs, r.Error, want)
			}
			requireHeldAccounted(t, r, c.parked, c.long)
			// The leader's first ticks: the queue ring rotates out of the slot
			// the jobs were inserted in, and the lease ring out of the slot of
			// the held jobs' leases (every registration and first progress
			// write appends one; the burn-down's own jobs write none).
			for _, ring := range []string{"queue", "claim", "lease", "cursor"} {
				if _, ok := r.Rings[ring]; !ok {
					t.Errorf("no outcomes of the %s ring: %v", ring, r.Rings)
				}
			}
			if r.Rings["queue"]["rotated"] < 1 || r.Rings["lease"]["rotated"] < 1 || r.RingEventsDropped != 0 {
				t.Errorf("ring outcomes %v (%d dropped): want the queue and lease rings rotated", r.Rings, r.RingEventsDropped)
			}
			requireHeldOutput(t, b.stdout, c.parked, c.long)
		})
	}
}

// TestBenchRateHoldsParkedAndLongJobsWhileEveryRingTurns runs a short awa
// rate run with -parked and -long and every maintenance service every
// 100 ms: the held jobs are accounted for as in the burn-down, callbacks
// were registered during the run by long and fresh attempts and each
// resumed once, and every ring rotated and pruned around them (the lease
// ring carrying the long attempts' live leases forward), with the ring
// tables' peak size sampled; the output quotes it all.
func TestBenchRateHoldsParkedAndLongJobsWhileEveryRingTurns(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	const parked, long = 200, 5
	b := runBench(ctx, t, dsn, []string{"rate"}, "-system", "awa", "-scenario", "rate",
		"-rates", "200", "-rate-warmup", "500ms", "-rate-duration", "5s", "-producers", "2",
		"-workers", "10", "-conns", "6", "-parked", fmt.Sprint(parked), "-long", fmt.Sprint(long),
		"-awa-maintenance", "100ms")
	if len(b.rep.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(b.rep.Runs))
	}
	r := b.rep.Runs[0]
	if want := fmt.Sprintf("200/s, %d parked, %d long", parked, long); r.Error != "" || r.Variant != want || r.Jobs < 1000 {
		t.Fatalf("run %q: %d jobs, error %q; want %q, at least 1000 jobs", r.Variant, r.Jobs, r.Error, want)
	}
	requireHeldAccounted(t, r, parked, long)
	if h := r.Held; h.CallbacksLong < 1 || h.CallbacksFresh < 1 {
		t.Errorf("callbacks during the run: %d by long, %d by fresh attempts; want some of each", h.CallbacksLong, h.CallbacksFresh)
	}
	for _, ring := range []string{"queue", "claim", "lease", "cursor"} {
		if c := r.Rings[ring]; c["rotated"] < 1 || c["pruned"] < 1 {
			t.Errorf("%s ring: %d rotated, %d pruned; want each ring rotated and pruned (%v)", ring, c["rotated"], c["pruned"], r.Rings)
		}
		if r.RingPeakBytes[ring] <= 0 {
			t.Errorf("%s ring: peak size %d bytes", ring, r.RingPeakBytes[ring])
		}
	}
	if r.RingEventsDropped != 0 || r.RingSizeSamples < 1 {
		t.Errorf("%d ring events dropped, %d size samples", r.RingEventsDropped, r.RingSizeSamples)
	}
	// The long attempts' leases are live through the run: a prune of their
	// slot carries them forward, all of them each time.
	if r.RingCarries["lease"] < 1 || r.RingRowsCarried["lease"] < long {
		t.Errorf("lease ring: %d carries of %d rows; want at least one carrying the %d long attempts' leases",
			r.RingCarries["lease"], r.RingRowsCarried["lease"], long)
	}
	requireHeldOutput(t, b.stdout, parked, long)
	flat := strings.Join(strings.Fields(b.stdout), " ")
	if s := fmt.Sprintf("lease %d rotated %d pruned %d carries (%d rows)", r.Rings["lease"]["rotated"],
		r.Rings["lease"]["pruned"], r.RingCarries["lease"], r.RingRowsCarried["lease"]); !strings.Contains(flat, s) {
		t.Errorf("output lacks %q", s)
	}
}

// requireHeldAccounted checks a run's account of its held jobs: every parked
// job still waiting with its token, every long attempt still open, then
// completed once; every callback registered during the run resumed and
// taken once, every fresh attempt completed; nothing stale.
func requireHeldAccounted(t *testing.T, r *benchkit.Run, parked, long int) {
	t.Helper()
	h := r.Held
	if h == nil {
		t.Fatal("no held jobs reported")
	}
	want := benchkit.HeldJobs{Parked: parked, Long: long, Queue: benchkit.HeldQueue,
		ParkedWaiting: int64(parked), QueueWaiting: int64(parked), LongOpen: int64(long), LongCompleted: int64(long),
		CallbacksLong: h.CallbacksLong, CallbacksFresh: h.CallbacksFresh,
		CallbacksResumed: h.CallbacksLong + h.CallbacksFresh, FreshCompleted: h.CallbacksFresh}
	got := *h
	got.SetupSeconds, got.Heartbeats, got.ProgressWrites = 0, 0, 0
	if got != want {
		t.Errorf("held jobs %+v, want %+v", got, want)
	}
}

// requireHeldOutput checks that the output quotes the rings and the held
// jobs' account.
func requireHeldOutput(t *testing.T, stdout string, parked, long int) {
	t.Helper()
	flat := strings.Join(strings.Fields(stdout), " ")
	for _, s := range []string{"rings: queue ", "; lease ", fmt.Sprintf(
		"held: %d parked, %d still waiting_external; %d long, %d still open, %d completed once",
		parked, parked, long, long, long), "callbacks during the run: "} {
		if !strings.Contains(flat, s) {
			t.Errorf("output lacks %q", s)
		}
	}
}

// TestBenchSweepsWithRiversOwnConfigAndTheMixedScenario runs a tiny sweep
// (two worker counts) of the burn-down and mixed scenarios for awa and River,
// River also at its own bench command's configuration: every point of the
// sweep is a run, the mixed runs retry and delay their share of jobs, and
// two results files merge into one report showing the sweep.
func TestBenchSweepsWithRiversOwnConfigAndTheMixedScenario(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		t.Fatal(err)
	}
	prefix := "awa_test_sweep_" + hex.EncodeToString(rnd[:])
	var dbs []string
	for _, s := range []string{"awa", "river"} {
		for _, sc := range []string{"burndown", "mixed"} {
			dbs = append(dbs, prefix+"_"+s+"_"+sc)
		}
	}
	t.Cleanup(func() { dropDatabases(t, dsn, dbs) })
	b := runBench(ctx, t, dsn, nil, "-db-prefix", prefix, "-scenario", "burndown,mixed", "-river-config", "both",
		"-jobs", "500", "-workers", "5,10", "-conns", "4", "-rate-warmup", "500ms", "-mixed-duration", "2s",
		"-mixed-rate", "100", "-mixed-delay", "500ms", "-producers", "2")
	var got []string
	for _, r := range b.rep.Runs {
		got = append(got, fmt.Sprintf("%s %s %s %d×%d", r.Scenario, r.System, r.Config, r.Workers, r.Conns))
		if r.Error != "" || r.PerSecond <= 0 {
			t.Errorf("%s %s at %d workers: %.0f/s, error %q", r.Scenario, r.System, r.Workers, r.PerSecond, r.Error)
		}
		if r.Scenario != "mixed" {
			continue
		}
		// Jobs 0..N: one in 20 planned to fail (n%20 == 7), one in 20 delayed.
		if r.PlannedFail == 0 || r.FailedFirst != r.PlannedFail || r.Retries < r.PlannedFail || r.Delayed == 0 {
			t.Errorf("mixed %s: %d planned failures, %d failed first attempts, %d retries, %d delayed", r.System,
				r.PlannedFail, r.FailedFirst, r.Retries, r.Delayed)
		}
		if d := r.DueLatency; d == nil || d.Count == 0 || r.Latency == nil || r.Latency.Count == 0 {
			t.Errorf("mixed %s: due→start %+v, insert→start %+v; want both recorded", r.System, d, r.Latency)
		}
	}
	own := fmt.Sprintf("river own 2000×%d", max(4, runtime.NumCPU()))
	// Each point of the sweep runs the systems in the order the last did not.
	want := []string{"burndown awa  5×4", "burndown river  5×4", "burndown river  10×4", "burndown awa  10×4",
		"burndown " + own, "mixed awa  5×4", "mixed river  5×4", "mixed river  10×4", "mixed awa  10×4", "mixed " + own}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if conf := b.rep.ClientConfs["river (own)"]; !strings.HasPrefix(conf["MaxWorkers"], "2000") {
		t.Errorf("River's own client settings %v", conf)
	}

	// The run's results merged with a copy of its mixed runs' make one report.
	dir := t.TempDir()
	mixedOnly := b.rep
	mixedOnly.Runs = nil
	for _, r := range b.rep.Runs {
		if r.Scenario == "mixed" {
			mixedOnly.Runs = append(mixedOnly.Runs, r)
		}
	}
	second := filepath.Join(dir, "mixed.json")
	if err := benchkit.WriteJSON(second, mixedOnly); err != nil {
		t.Fatal(err)
	}
	merged, md := filepath.Join(dir, "merged.json"), filepath.Join(dir, "report.md")
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"-merge", b.out + "," + second, "-out", merged, "-md", md}, &stdout, &stderr); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr.String())
	}
	var m benchkit.Report
	data, err := os.ReadFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Runs) != len(b.rep.Runs)+len(mixedOnly.Runs) || len(m.MergedFrom) != 2 {
		t.Errorf("merged %d runs from %d files; want %d from 2", len(m.Runs), len(m.MergedFrom),
			len(b.rep.Runs)+len(mixedOnly.Runs))
	}
	report, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"### Sweep: every configuration", "Best vs best:", "### Mixed workload",
		"| river | own: 2000 workers", "Merged (`bench -merge`) from 2 results files"} {
		if !strings.Contains(string(report), s) {
			t.Errorf("merged report lacks %q", s)
		}
	}
}

// TestBenchRejectsBadFlags: mistakes are usage errors (exit 2), found before
// any database is touched.
func TestBenchRejectsBadFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-scenario", "sprint"},
		{"-rates", "800,fast"},
		{"-enqueue-producers", "0"},
		{"-workers", "0"},
		{"-workers", "50,50"},
		{"-conns", "20,"},
		{"-river-config", "fast"},
		{"-merge", "a.json", "-from", "b.json"},
		{"-system", "sqlite"},
		{"-awa-otel", "loud"},
		{"-system", "awa", "-parked", "-1"},
		{"-long", "5"}, // River holds no awa job (-system both)
		{"extra"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), append([]string{"-dsn", "postgres://nowhere.invalid/x"}, args...),
			&stdout, &stderr); code != 2 {
			t.Errorf("bench %q: exit %d, want 2; stderr: %s", args, code, stderr.String())
		}
	}
}

func TestBenchCommandLeavesOutTheDSN(t *testing.T) {
	got := commandLine([]string{"-jobs", "5", "-dsn", "postgres://u:secret@h/db", "--dsn=x", "-quick"})
	if got != "bench -jobs 5 -quick" {
		t.Errorf("commandLine = %q", got)
	}
}

// benchRun is a bench run in process against the AWA_TEST_DSN server.
type benchRun struct {
	stdout string
	out    string // the JSON results file
	rep    benchkit.Report
	dbs    []string // the run databases of its scenarios
}

// runBench runs the bench with args, its run databases of its own (so a
// concurrent `make bench` or test run on the same server does not collide
// with this one; dropped at cleanup in any case), and a JSON results file:
// the run must exit 0.
func runBench(ctx context.Context, t *testing.T, dsn string, scenarios []string, args ...string) benchRun {
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		t.Fatal(err)
	}
	prefix := "awa_test_bench_" + hex.EncodeToString(rnd[:])
	b := benchRun{out: filepath.Join(t.TempDir(), "bench.json")}
	for _, sc := range scenarios {
		b.dbs = append(b.dbs, prefix+"_awa_"+sc)
	}
	t.Cleanup(func() { dropDatabases(t, dsn, b.dbs) })
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run(ctx, append([]string{"-md", "", "-dsn", dsn, "-db-prefix", prefix, "-out", b.out}, args...), &stdout, &stderr)
	t.Logf("bench took %s; output:\n%s", time.Since(start).Round(time.Millisecond), stdout.String())
	if stderr.Len() > 0 {
		t.Logf("stderr:\n%s", stderr.String())
	}
	if code != 0 {
		t.Fatalf("bench: exit %d", code)
	}
	b.stdout = stdout.String()
	data, err := os.ReadFile(b.out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &b.rep); err != nil {
		t.Fatalf("%s: %v", b.out, err)
	}
	return b
}

// dropDatabases drops what a failed run may have left.
func dropDatabases(t *testing.T, dsn string, names []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Errorf("drop run databases: %v", err)
		return
	}
	defer conn.Close(context.Background())
	for _, n := range names {
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{n}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("drop %s: %v", n, err)
		}
	}
}

// TestBenchFairnessPrintsBothPhases runs the -fairness scenario at a tiny
// size: it prints the trickle's latencies alone and beside the flood, and
// the ratio of their p99s, and drops its database.
func TestBenchFairnessPrintsBothPhases(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		t.Fatal(err)
	}
	prefix := "benchfair_" + hex.EncodeToString(rnd[:])
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"-dsn", dsn, "-db-prefix", prefix, "-fairness", "-fairness-flood", "300",
		"-fairness-duration", "400ms", "-workers", "8"}, &stdout, &stderr); code != 0 {
		t.Fatalf("bench -fairness: exit %d; stderr: %s", code, stderr.String())
	}
	for _, s := range []string{"fairness alone", "fairness with-flood", "its value alone (target: at most 2x)"} {
		if !strings.Contains(stdout.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, stdout.String())
		}
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var left int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_database WHERE datname = $1`, prefix+"_fairness").Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("the run database %s_fairness is still there", prefix)
	}
}

// TestBenchLimitsPrintsEachLimitAgainstItsBound runs the -limits scenario
// briefly: it prints the three phases, the rate phase's busiest window within
// rate + burst and a key's most running within its limit (the database
// enforces both), and drops its database.
func TestBenchLimitsPrintsEachLimitAgainstItsBound(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		t.Fatal(err)
	}
	prefix := "benchlim_" + hex.EncodeToString(rnd[:])
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"-dsn", dsn, "-db-prefix", prefix, "-limits", "-limits-duration", "1500ms",
		"-limits-clients", "2", "-workers", "10", "-limits-rate", "50", "-limits-burst", "5", "-limits-keys", "4",
		"-limits-key-limit", "2", "-limits-max-depth", "150"}, &stdout, &stderr); code != 0 {
		t.Fatalf("bench -limits: exit %d; stderr: %s", code, stderr.String())
	}
	out := stdout.String()
	for _, s := range []string{"limits rate", "(bound: rate + burst = 55)", "limits key", "(limit 2)", "limits depth", "(limit 150)"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	var window, running int
	for _, line := range strings.Split(out, "\n") {
		if i := strings.Index(line, "busiest 1 s window "); i >= 0 {
			fmt.Sscanf(line[i+len("busiest 1 s window "):], "%d", &window)
		}
		if i := strings.Index(line, "most running of a key "); i >= 0 {
			fmt.Sscanf(line[i+len("most running of a key "):], "%d", &running)
		}
	}
	if window < 1 || window > 55 || running < 1 || running > 2 {
		t.Errorf("busiest window %d (want 1..55), most running of a key %d (want 1..2):\n%s", window, running, out)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var left int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_database WHERE datname = $1`, prefix+"_limits").Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("the run database %s_limits is still there", prefix)
	}
}
