package driver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

type periodicArgs struct {
	Report string `json:"report"`
}

func (periodicArgs) Kind() string { return "periodic_report" }

// periodicMaintenance is fastMaintenance with the periodic service ticking
// every 50ms.
func periodicMaintenance() *driver.MaintenanceConfig {
	m := fastMaintenance()
	m.PeriodicInterval = 50 * time.Millisecond
	return m
}

// periodicFire is one job a schedule enqueued, as its metadata tells.
type periodicFire struct {
	ID         int64
	Queue      string
	FireAt     time.Time
	MissedFrom *time.Time
	Metadata   json.RawMessage
}

// periodicFires returns the jobs schedule name enqueued, by fire time.
func periodicFires(t *testing.T, ctx context.Context, pool *pgxpool.Pool, name string) []periodicFire {
	t.Helper()
	rows, err := pool.Query(ctx, `
		SELECT id, queue, (metadata #>> '{periodic,fire_at}')::timestamptz,
		       (metadata #>> '{periodic,missed_from}')::timestamptz, metadata
		FROM awa.jobs WHERE metadata #>> '{periodic,name}' = $1
		ORDER BY 3`, name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []periodicFire
	for rows.Next() {
		var f periodicFire
		if err := rows.Scan(&f.ID, &f.Queue, &f.FireAt, &f.MissedFrom, &f.Metadata); err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func periodicInfo(t *testing.T, ctx context.Context, d *driver.Driver, pool *pgxpool.Pool, name string) driver.PeriodicJobInfo {
	t.Helper()
	all, err := d.PeriodicJobs(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no periodic job %q in %+v", name, all)
	return driver.PeriodicJobInfo{}
}

// TestPeriodicJobFiresEachTimeOnceAndPauses: a schedule declared in Config
// is stored by the leader and fires every second, each fire time one job
// (1s apart, none twice) with the declared opts and its fire time in its
// metadata, each announced by an EventPeriodicFired; paused, it fires
// nothing; resumed, it goes on from the resume, the times of the pause never
// firing.
func TestPeriodicJobFiresEachTimeOnceAndPauses(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	c, events := startClientEvents(t, pool, &driver.Config{Maintenance: periodicMaintenance(),
		PeriodicJobs: []*driver.PeriodicJob{{Name: "tick", Schedule: "@every 1s", Args: periodicArgs{Report: "r1"},
			Opts: &driver.InsertOpts{Queue: "periodic_q", Priority: 1, Metadata: json.RawMessage(`{"team": "ops"}`)}}}})
	d := c.Driver()

	fired := func() []*driver.Event {
		return events.of(driver.EventPeriodicFired, func(e *driver.Event) bool { return e.Periodic.Name == "tick" })
	}
	waitFor(t, 15*time.Second, "3 fires", func() (bool, string) { return len(fired()) >= 3, events.kinds() })
	fires := periodicFires(t, ctx, pool, "tick")
	if len(fires) < 3 {
		t.Fatalf("%d jobs for %d fire events", len(fires), len(fired()))
	}
	for i, f := range fires {
		if f.Queue != "periodic_q" || f.MissedFrom != nil || !strings.Contains(string(f.Metadata), `"team": "ops"`) {
			t.Fatalf("fire %d: %+v (%s); want queue periodic_q, no missed span, the declared metadata kept", i, f, f.Metadata)
		}
		if i > 0 && f.FireAt.Sub(fires[i-1].FireAt) != time.Second {
			t.Fatalf("fires %s then %s: want 1s apart, each once", fires[i-1].FireAt, f.FireAt)
		}
	}
	for _, e := range fired() {
		if e.Periodic.Outcome != driver.PeriodicFired || e.Periodic.JobID == 0 || !e.Periodic.MissedFrom.IsZero() {
			t.Fatalf("event %+v: want a fired job without a missed span", e.Periodic)
		}
	}

	paused, err := d.PausePeriodicJob(ctx, pool, "tick")
	if err != nil || !paused.Paused {
		t.Fatalf("PausePeriodicJob = %+v, %v", paused, err)
	}
	settled := len(periodicFires(t, ctx, pool, "tick")) // a fire in flight at the pause is stale
	time.Sleep(2500 * time.Millisecond)
	if n := len(periodicFires(t, ctx, pool, "tick")); n != settled {
		t.Fatalf("%d jobs after 2.5s paused, %d at the pause: a paused schedule fired", n, settled)
	}
	resumedAt := time.Now()
	if r, err := d.ResumePeriodicJob(ctx, pool, "tick"); err != nil || r.Paused || !r.NextRunAt.IsZero() {
		t.Fatalf("ResumePeriodicJob = %+v, %v; want resumed with no next time", r, err)
	}
	waitFor(t, 10*time.Second, "a fire after the resume", func() (bool, string) {
		n := len(periodicFires(t, ctx, pool, "tick"))
		return n > settled, fmt.Sprintf("%d jobs", n)
	})
	all := periodicFires(t, ctx, pool, "tick")
	if first := all[settled].FireAt; first.Before(resumedAt.Add(-time.Second)) {
		t.Fatalf("the first fire after the resume is for %s, before the resume at %s: a paused time fired", first, resumedAt)
	}
	info := periodicInfo(t, ctx, d, pool, "tick")
	last := all[len(all)-1]
	if info.LastJobID < last.ID || info.LastFiredAt.Before(last.FireAt) || info.Kind != "periodic_report" ||
		string(info.Args) != `{"report": "r1"}` {
		t.Fatalf("PeriodicJobs: %+v; want the last fire %+v recorded and the declared job", info, last)
	}
}

// TestPeriodicMissedTimesFireOnceOrAreSkipped: two schedules whose next time
// is 10 s past when the leader starts (no leader ran meanwhile): fire_once
// enqueues one job for the whole span, at its latest time, marked with the
// first (missed_from); skip enqueues none of them and goes on from its next
// time.
func TestPeriodicMissedTimesFireOnceOrAreSkipped(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	d := driver.New()
	var behind time.Time
	if err := pool.QueryRow(ctx, `SELECT date_trunc('second', now()) - interval '10 seconds'`).Scan(&behind); err != nil {
		t.Fatal(err)
	}
	for _, missed := range []driver.MissedPolicy{driver.MissedFireOnce, driver.MissedSkip} {
		name := string(missed)
		p, err := d.UpsertPeriodicJob(ctx, pool, driver.PeriodicJobParams{Name: name, Schedule: "@every 1s",
			Kind: "periodic_report", Missed: missed})
		if err != nil {
			t.Fatal(err)
		}
		// As a leader that scheduled it and died: its next time 10 s ago.
		if f, err := d.FirePeriodicJob(ctx, pool, driver.PeriodicFireParams{Name: name, Revision: p.Revision,
			NextRunAt: behind}); err != nil || f.Outcome != driver.PeriodicScheduled {
			t.Fatalf("schedule %s: %+v, %v", name, f, err)
		}
	}
	_, events := startClientEvents(t, pool, &driver.Config{Maintenance: periodicMaintenance()})
	waitFor(t, 15*time.Second, "both schedules caught up", func() (bool, string) {
		a, b := periodicInfo(t, ctx, d, pool, "fire_once"), periodicInfo(t, ctx, d, pool, "skip")
		return a.NextRunAt.After(behind.Add(10*time.Second)) && b.NextRunAt.After(behind.Add(10*time.Second)),
			fmt.Sprintf("next times %s, %s", a.NextRunAt, b.NextRunAt)
	})

	once := periodicFires(t, ctx, pool, "fire_once")
	if len(once) == 0 || once[0].MissedFrom == nil || !once[0].MissedFrom.Equal(behind) ||
		once[0].FireAt.Before(behind.Add(9*time.Second)) {
		t.Fatalf("fire_once's jobs %+v: want the first to cover the missed span from %s to its latest time", once, behind)
	}
	for i := 1; i < len(once); i++ {
		if once[i].MissedFrom != nil || once[i].FireAt.Sub(once[i-1].FireAt) != time.Second {
			t.Fatalf("fire_once's jobs after the catch-up: %+v; want one per second", once)
		}
	}
	ev := events.of(driver.EventPeriodicFired, func(e *driver.Event) bool { return e.Periodic.JobID == once[0].ID })
	if len(ev) != 1 || !ev[0].Periodic.MissedFrom.Equal(behind) {
		t.Fatalf("events of the catch-up fire: %d; want one with MissedFrom %s", len(ev), behind)
	}
	for _, f := range periodicFires(t, ctx, pool, "skip") {
		if f.MissedFrom != nil || !f.FireAt.After(behind.Add(9*time.Second)) {
			t.Fatalf("skip enqueued %+v: a missed time fired", f)
		}
	}
}

// TestPeriodicScheduleGoCannotParseIsRejectedAlone: a spec of the right shape
// that robfig/cron refuses (minute 61), declared from SQL, is rejected by
// the leader (its error recorded, not evaluated again), while a schedule
// beside it fires; an upsert that fixes it clears the error and it fires.
func TestPeriodicScheduleGoCannotParseIsRejectedAlone(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	d := driver.New()
	for name, spec := range map[string]string{"bad": "61 * * * *", "good": "@every 1s"} {
		if _, err := d.UpsertPeriodicJob(ctx, pool, driver.PeriodicJobParams{Name: name, Schedule: spec,
			Kind: "periodic_report"}); err != nil {
			t.Fatal(err)
		}
	}
	startClient(t, pool, &driver.Config{Maintenance: periodicMaintenance()})
	waitFor(t, 15*time.Second, "the bad spec rejected and the good one fired", func() (bool, string) {
		bad := periodicInfo(t, ctx, d, pool, "bad")
		n := len(periodicFires(t, ctx, pool, "good"))
		return bad.Error != "" && n > 0, fmt.Sprintf("bad: %q, good fired %d", bad.Error, n)
	})
	if bad := periodicInfo(t, ctx, d, pool, "bad"); !strings.Contains(bad.Error, "above maximum") || !bad.NextRunAt.IsZero() {
		t.Fatalf("bad: %+v; want robfig/cron's error and no next time", bad)
	}
	if _, err := d.UpsertPeriodicJob(ctx, pool, driver.PeriodicJobParams{Name: "bad", Schedule: "@every 1s",
		Kind: "periodic_report"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 15*time.Second, "the fixed schedule to fire", func() (bool, string) {
		n := len(periodicFires(t, ctx, pool, "bad"))
		return n > 0, fmt.Sprintf("%d jobs, %+v", n, periodicInfo(t, ctx, d, pool, "bad"))
	})
}

// TestPeriodicDriverErrorsMapToSentinels: the management calls map the
// substrate's refusals to their sentinels and write nothing.
func TestPeriodicDriverErrorsMapToSentinels(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	d := driver.New()
	for _, tc := range []struct {
		name string
		call func() error
		want error
	}{
		{"delete unknown", func() error { _, err := d.DeletePeriodicJob(ctx, pool, "missing"); return err },
			driver.ErrPeriodicJobNotFound},
		{"pause unknown", func() error { _, err := d.PausePeriodicJob(ctx, pool, "missing"); return err },
			driver.ErrPeriodicJobNotFound},
		{"resume unknown", func() error { _, err := d.ResumePeriodicJob(ctx, pool, "missing"); return err },
			driver.ErrPeriodicJobNotFound},
		{"bad zone", func() error {
			_, err := d.UpsertPeriodicJob(ctx, pool, driver.PeriodicJobParams{Name: "p", Schedule: "@hourly", Kind: "k",
				TimeZone: "Mars/Olympus"})
			return err
		}, driver.ErrInvalidPeriodicJob},
		{"run_at", func() error {
			_, err := d.UpsertPeriodicJob(ctx, pool, driver.PeriodicJobParams{Name: "p", Schedule: "@hourly", Kind: "k",
				Opts: driver.InsertOpts{RunAt: time.Now()}})
			return err
		}, driver.ErrUnknownOption},
		{"bad priority", func() error {
			_, err := d.UpsertPeriodicJob(ctx, pool, driver.PeriodicJobParams{Name: "p", Schedule: "@hourly", Kind: "k",
				Opts: driver.InsertOpts{Priority: 7}})
			return err
		}, driver.ErrOptionOutOfRange},
	} {
		if err := tc.call(); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v; want %v", tc.name, err, tc.want)
		}
	}
	if all, err := d.PeriodicJobs(ctx, pool); err != nil || len(all) != 0 {
		t.Fatalf("PeriodicJobs = %+v, %v; want none written", all, err)
	}
}

// TestPeriodicJobsFireInTheirOwnSchema: two installs side by side, each with
// a client declaring a schedule of the same name: each leader stores and
// fires its own install's schedule, into its own install's jobs.
func TestPeriodicJobsFireInTheirOwnSchema(t *testing.T) {
	ctx := pgtest.Context(t, time.Minute)
	pool := twoSchemaDB(t)
	schemas := []string{driver.DefaultSchema, otherSchema}
	for _, s := range schemas {
		startClient(t, pool, &driver.Config{Schema: s, Maintenance: periodicMaintenance(),
			PeriodicJobs: []*driver.PeriodicJob{{Name: "tick", Schedule: "@every 1s", Args: periodicArgs{Report: s}}}})
	}
	for _, s := range schemas {
		waitFor(t, 15*time.Second, s+"'s schedule to fire", func() (bool, string) {
			var mine, theirs int
			if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE args ->> 'report' = $1),
				count(*) FILTER (WHERE args ->> 'report' <> $1) FROM `+s+`.jobs WHERE kind = 'periodic_report'`, s).
				Scan(&mine, &theirs); err != nil {
				return false, err.Error()
			}
			if theirs > 0 {
				t.Fatalf("schema %s holds %d periodic jobs of the other install", s, theirs)
			}
			return mine >= 2, fmt.Sprintf("%d fired", mine)
		})
	}
}

// longKindArgs has a kind Go accepts and awa.upsert_periodic_job refuses
// (AW001: over 255 characters).
type longKindArgs struct{}

func (longKindArgs) Kind() string { return strings.Repeat("k", 300) }

// TestPeriodicDeclarationTheDatabaseRefusesLeavesTheOthersFiring: a Config
// declaration that NewClient lets through but the substrate refuses (a kind
// of 300 characters) is reported by the periodic service at each tick, and
// the declaration beside it is stored and fires all the same.
func TestPeriodicDeclarationTheDatabaseRefusesLeavesTheOthersFiring(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	log, rec := testLogger(t, "periodic")
	startClient(t, pool, &driver.Config{Logger: log, Maintenance: periodicMaintenance(),
		PeriodicJobs: []*driver.PeriodicJob{{Name: "refused", Schedule: "@every 1s", Args: longKindArgs{}},
			{Name: "fine", Schedule: "@every 1s", Args: periodicArgs{}}}})
	waitFor(t, 15*time.Second, "the fine schedule to fire", func() (bool, string) {
		n := len(periodicFires(t, ctx, pool, "fine"))
		return n >= 2, fmt.Sprintf("%d fired", n)
	})
	if failed := rec.find("awa: Maintenance service failed", func(e logEntry) bool {
		return e.Attrs["service"] == "periodic" && strings.Contains(fmt.Sprint(e.Attrs["error"]), "kind must be 1 to 255 characters")
	}); len(failed) == 0 {
		t.Fatalf("the refused declaration was not reported")
	}
	all, err := driver.New().PeriodicJobs(ctx, pool)
	if err != nil || len(all) != 1 || all[0].Name != "fine" {
		t.Fatalf("PeriodicJobs = %+v, %v; want the fine one only", all, err)
	}
}
