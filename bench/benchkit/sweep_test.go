package benchkit

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

func parseOptions(t *testing.T, args ...string) (Options, error) {
	t.Helper()
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	f := RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f.Options()
}

func TestWorkersAndConnsTakeASweepList(t *testing.T) {
	o, err := parseOptions(t)
	if err != nil {
		t.Fatal(err)
	}
	if o.Workers != 100 || o.Conns != 20 || fmt.Sprint(o.WorkerList, o.ConnList) != "[100] [20]" {
		t.Errorf("default: workers %d %v, conns %d %v; want one setting, 100 and 20", o.Workers, o.WorkerList, o.Conns, o.ConnList)
	}
	o, err = parseOptions(t, "-workers", "50, 100,500,2000", "-conns", "20,100")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(o.WorkerList, o.ConnList) != "[50 100 500 2000] [20 100]" || o.Workers != 50 || o.Conns != 20 {
		t.Errorf("sweep: workers %d %v, conns %d %v", o.Workers, o.WorkerList, o.Conns, o.ConnList)
	}
	for _, args := range [][]string{
		{"-workers", "50,50"}, {"-workers", "0"}, {"-workers", ""}, {"-conns", "20,x"}, {"-conns", "-1"},
		{"-mixed-rate", "0"}, {"-mixed-delay", "0s"},
	} {
		if _, err := parseOptions(t, args...); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

// fixedSystem is a system at a configuration of its own (as River's "own").
type fixedSystem struct{ fakeSystem }

func (fixedSystem) Config() string              { return "own" }
func (fixedSystem) Fixed() (workers, conns int) { return 2000, 4 }

type fakeSystem struct{ name string }

func (s fakeSystem) Name() string                                           { return s.name }
func (fakeSystem) Migrate(context.Context, string) error                    { return nil }
func (fakeSystem) Inserter(*pgxpool.Pool) (Inserter, error)                 { return nil, nil }
func (fakeSystem) OwnsTable(string, string) bool                            { return false }
func (fakeSystem) Settings(int) map[string]string                           { return nil }
func (fakeSystem) Pending(context.Context, *pgx.Conn) (int64, int64, error) { return 0, 0, nil }
func (fakeSystem) Start(context.Context, *pgxpool.Pool, int, *Handler) (Stopper, error) {
	return nil, nil
}

func TestRunConfigsCoverTheSweepAndAFixedSystemOnce(t *testing.T) {
	o := Options{Workers: 50, Conns: 20, WorkerList: []int{50, 100}, ConnList: []int{20, 100}}
	awa, own := fakeSystem{"awa"}, fixedSystem{fakeSystem{"river"}}
	show := func(cs []runConfig) string {
		var out []string
		for _, c := range cs {
			var names []string
			for _, s := range c.systems {
				names = append(names, settingsKey(s))
			}
			out = append(out, fmt.Sprintf("%dx%d:%s", c.workers, c.conns, strings.Join(names, "+")))
		}
		return strings.Join(out, " ")
	}
	if got, want := show(runConfigs("burndown", o, []System{awa, own})),
		"50x20:awa 50x100:awa 100x20:awa 100x100:awa 2000x4:river (own)"; got != want {
		t.Errorf("burndown configs %s, want %s", got, want)
	}
	if got, want := show(runConfigs("enqueue", o, []System{awa, own})), "50x20:awa+river (own)"; got != want {
		t.Errorf("enqueue configs %s, want %s", got, want)
	}
}

func sweepRun(system, scenario string, workers int, config string, perSec, p99, achieved, completion float64) *Run {
	return &Run{System: system, Scenario: scenario, Variant: "v", Workers: workers, Conns: 20, Config: config,
		PerSecond: perSec, Latency: &Summary{P99Ms: p99}, AchievedInsert: achieved, CompletionRate: completion}
}

// sweepReport: burn-down awa at 50 workers (medians 300 of 100, 300, 310)
// beats 100 (255); River's own configuration (400) beats its sweep (200).
// At an offered rate, awa's lower p99 at 50 workers did not keep up, so 100
// is its best; River kept up at neither, so its higher completion wins.
func sweepReport() *Report {
	return &Report{Config: Config{Systems: []string{"awa", "river"}}, Runs: []*Run{
		sweepRun("awa", "burndown", 50, "", 100, 0, 0, 0),
		sweepRun("awa", "burndown", 50, "", 300, 0, 0, 0),
		sweepRun("awa", "burndown", 50, "", 310, 0, 0, 0),
		sweepRun("awa", "burndown", 100, "", 250, 0, 0, 0),
		sweepRun("awa", "burndown", 100, "", 260, 0, 0, 0),
		sweepRun("river", "burndown", 50, "", 200, 0, 0, 0),
		sweepRun("river", "burndown", 2000, "own", 400, 0, 0, 0),
		{System: "river", Scenario: "burndown", Variant: "v", Workers: 5000, Conns: 20, PerSecond: 900, Error: "boom"},
		sweepRun("awa", "rate", 50, "", 700, 5, 800, 700),
		sweepRun("awa", "rate", 100, "", 795, 9, 800, 795),
		sweepRun("river", "rate", 50, "", 600, 20, 800, 600),
		sweepRun("river", "rate", 100, "", 700, 30, 800, 700),
	}}
}

func TestBestConfigurationOfEachSystem(t *testing.T) {
	best := bestConfigs(aggregateConfigs(sweepReport()))
	for k, want := range map[key]string{
		{"burndown", "v", "awa"}:   "50 workers, 20 conns",
		{"burndown", "v", "river"}: "own: 2000 workers, 20 conns",
		{"rate", "v", "awa"}:       "100 workers, 20 conns",
		{"rate", "v", "river"}:     "100 workers, 20 conns",
	} {
		if got := best[k].label(); got != want {
			t.Errorf("best of %v: %s, want %s", k, got, want)
		}
	}
}

func TestSummaryComparesEachSystemAtItsBest(t *testing.T) {
	lines := summaryLines(sweepReport(), "awa", "river")
	if lines[1] != "burndown v jobs/s 300 400 0.75× 0.00 0.00 –" {
		t.Errorf("burn-down line %q: want awa's median at 50 workers against River's own", lines[1])
	}
	flat := strings.Join(lines, "\n")
	for _, s := range []string{"best configurations (the medians above are theirs):",
		"burndown v awa 50 workers, 20 conns: 300 jobs/s", "burndown v river own: 2000 workers, 20 conns: 400 jobs/s"} {
		if !strings.Contains(flat, s) {
			t.Errorf("summary lacks %q:\n%s", s, flat)
		}
	}
}

func TestSweepTableShowsEveryConfigurationAndBestVsBest(t *testing.T) {
	var b bytes.Buffer
	writeSweep(func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }, sweepReport())
	got := b.String()
	for _, s := range []string{
		"| awa | 50 workers, 20 conns | 3 | 300 | – | – | 0.00 B | **best** |",
		"| awa | 100 workers, 20 conns | 2 | 255 | – | – | 0.00 B |  |",
		"| river | 50 workers, 20 conns | 1 | 200 | – | – | 0.00 B |  |",
		"| river | own: 2000 workers, 20 conns | 1 | 400 | – | – | 0.00 B | **best** |",
		"| awa | 50 workers, 20 conns | 1 | 700 | 0.00 | 5.00 | 0.00 B |  |",
		"| awa | 100 workers, 20 conns | 1 | 795 | 0.00 | 9.00 | 0.00 B | **best** |",
		"| burndown | v | 50 workers, 20 conns | 300 | own: 2000 workers, 20 conns | 400 | **0.75×** |",
		"| rate | v | 100 workers, 20 conns | 9.00 | 100 workers, 20 conns | 30.0 | **3.33× (River p99 / awa p99)** |",
	} {
		if !strings.Contains(got, s) {
			t.Errorf("sweep section lacks %q:\n%s", s, got)
		}
	}
	if strings.Contains(got, "5000 workers") {
		t.Errorf("a failed run is in the sweep:\n%s", got)
	}
	// One configuration per system and no own one: no sweep section.
	b.Reset()
	writeSweep(func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }, &Report{Runs: []*Run{
		sweepRun("awa", "burndown", 100, "", 1, 0, 0, 0), sweepRun("river", "burndown", 100, "", 1, 0, 0, 0)}})
	if b.Len() != 0 {
		t.Errorf("a single setting wrote a sweep section:\n%s", b.String())
	}
}

func TestMergeKeepsEveryRunOfEachFile(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	a := &Report{StartedAt: t0, FinishedAt: t0.Add(time.Hour), Command: "bench -scenario burndown", River: "v0.51.2",
		Source: "abc", Config: Config{Systems: []string{"awa", "river"}, Scenarios: []string{"burndown"}, Jobs: 1000,
			Workers: 50, Conns: 20, WorkerList: []int{50, 100}, ConnList: []int{20}},
		ClientConfs: map[string]map[string]string{"awa": {"x": "1"}},
		Runs:        []*Run{sweepRun("awa", "burndown", 50, "", 1, 0, 0, 0), sweepRun("awa", "burndown", 100, "", 2, 0, 0, 0)}}
	b := &Report{StartedAt: t0.Add(2 * time.Hour), FinishedAt: t0.Add(3 * time.Hour), Command: "bench -scenario mixed",
		River: "v0.51.2", Source: "abc", Config: Config{Systems: []string{"river", "awa"}, Scenarios: []string{"mixed"},
			Workers: 2000, Conns: 20, MixedRate: 800, MixedDuration: "30s", MixedDelay: "3s", MixedWork: "1ms"},
		ClientConfs: map[string]map[string]string{"river (own)": {"MaxWorkers": "2000"}},
		Runs:        []*Run{sweepRun("river", "mixed", 2000, "own", 3, 0, 0, 0)}}
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Runs) != 3 || m.Runs[2].Scenario != "mixed" || len(a.Runs) != 2 {
		t.Errorf("merged runs %d (last %s), first file's %d; want 3 in order, the files untouched", len(m.Runs),
			m.Runs[len(m.Runs)-1].Scenario, len(a.Runs))
	}
	c := m.Config
	if fmt.Sprintf("%v %v %v %v %v %v %v", c.Systems, c.Scenarios, c.WorkerList, c.ConnList, c.Jobs, c.MixedRate,
		c.MixedDuration) !=
		"[awa river] [burndown mixed] [50 100 2000] [20] 1000 800 30s" {
		t.Errorf("merged config %+v", c)
	}
	if !m.StartedAt.Equal(t0) || !m.FinishedAt.Equal(t0.Add(3*time.Hour)) || len(m.ClientConfs) != 2 {
		t.Errorf("merged span %s–%s, client settings %v", m.StartedAt, m.FinishedAt, m.ClientConfs)
	}
	if len(m.MergedFrom) != 2 || m.MergedFrom[1].Command != "bench -scenario mixed" || m.MergedFrom[0].Runs != 2 {
		t.Errorf("merged from %+v", m.MergedFrom)
	}
	b.River = "v0.40.0"
	if _, err := Merge(a, b); err == nil {
		t.Error("two River versions merged into one report")
	}
	if _, err := Merge(); err == nil {
		t.Error("an empty merge succeeded")
	}
}
