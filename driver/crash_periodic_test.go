//go:build unix

package driver_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/url"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/awa-queue/awa/driver"
)

// TestCrashPeriodicLeaderKilledFiresEachTimeOnce: two crash workers declare
// eight "@every 1s" periodic jobs (four fire_once, four skip) and the
// maintenance leader among them is SIGKILLed over and over, at random
// points: between ticks, and while its fire step waits inside its
// transaction (a blocker holds the one lane of the schedules' queue, so
// the step is stuck in awa.insert_job with the schedule's row locked when
// the kill lands, and its backend goes on after the kill). A replacement
// starts after each kill, under the killed instance (it leads again at
// once, while the dead backend may still hold the row) or a new one (the
// surviving worker takes over once the dead one's lease expires). At the
// end, for each fire_once schedule the jobs tile every fire time from its
// first to the one before its next_run_at (each time one job of its own or
// in one job's missed span, none twice); a skip schedule enqueued each time
// at most once, all on its grid. Over 100 fire times are covered in all.
func TestCrashPeriodicLeaderKilledFiresEachTimeOnce(t *testing.T) {
	env := newCrashEnv(t)
	ctx, pool := env.ctx, env.pool
	const schedules = 8
	d := driver.New()
	if err := d.ConfigureQueue(ctx, pool, "crash_periodic", driver.QueueOptions{EnqueueShards: ptr(1)}); err != nil {
		t.Fatal(err)
	}
	// Declared as the workers will declare them, then scheduled by hand from
	// a known first time, so a gap before the first fire shows too.
	var first time.Time
	if err := pool.QueryRow(ctx, `SELECT date_trunc('second', now()) + interval '3 seconds'`).Scan(&first); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < schedules; i++ {
		missed := driver.MissedFireOnce
		if i%2 == 1 {
			missed = driver.MissedSkip
		}
		name := fmt.Sprintf("crash_periodic_%d", i)
		p, err := d.UpsertPeriodicJob(ctx, pool, driver.PeriodicJobParams{Name: name, Schedule: "@every 1s",
			Kind: "crash_periodic", Args: fmt.Appendf(nil, `{"n":%d}`, i), Opts: driver.InsertOpts{Queue: "crash_periodic"},
			Missed: missed})
		if err != nil {
			t.Fatal(err)
		}
		if f, err := d.FirePeriodicJob(ctx, pool, driver.PeriodicFireParams{Name: name, Revision: p.Revision,
			NextRunAt: first}); err != nil || f.Outcome != driver.PeriodicScheduled {
			t.Fatalf("schedule %s: %+v, %v", name, f, err)
		}
	}

	// Each worker's backends carry its instance as application_name, so the
	// test sees when the leader's own fire step waits in its transaction.
	u, err := url.Parse(env.dsn)
	if err != nil {
		t.Fatal(err)
	}
	app := func(id [16]byte) string { return "crash-" + hex.EncodeToString(id[:]) }
	start := func(id [16]byte) {
		q := u.Query()
		q.Set("application_name", app(id))
		w := *u
		w.RawQuery = q.Encode()
		env.startAs(id, "-dsn", w.String(), "-periodic", fmt.Sprint(schedules))
	}
	start(newInstanceID(t))
	start(newInstanceID(t))

	runFor := 30 * time.Second
	stopAt := time.Now().Add(runFor)
	blockerDone := make(chan struct{})
	go func() { // holds the queue's one lane now and then, as a slow producer would
		defer close(blockerDone)
		for time.Now().Before(stopAt) && ctx.Err() == nil {
			time.Sleep(time.Duration(300+rand.IntN(900)) * time.Millisecond)
			tx, err := pool.Begin(ctx)
			if err != nil {
				return
			}
			_, _ = d.Insert(ctx, tx, driver.InsertParams{Kind: "crash_blocker", Args: []byte(`{}`),
				Opts: driver.InsertOpts{Queue: "crash_periodic"}})
			time.Sleep(time.Duration(200+rand.IntN(800)) * time.Millisecond)
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()

	leader := func() *workerProc {
		var holder pgtype.UUID
		err := pool.QueryRow(ctx, `SELECT holder FROM awa.leader_leases WHERE name = 'maintenance' AND expires_at > now()`).
			Scan(&holder)
		if err != nil {
			return nil
		}
		for _, p := range env.live() {
			if p.instance == holder.Bytes {
				return p
			}
		}
		return nil
	}
	stuck := func(p *workerProc) bool {
		return env.queryInt(`SELECT count(*) FROM pg_stat_activity
			WHERE application_name = $1 AND wait_event_type = 'Lock' AND query LIKE '%fire_periodic_job%'`, app(p.instance)) > 0
	}
	kills, midFire := 0, 0
	for time.Now().Before(stopAt) {
		waitFor(t, 15*time.Second, "a live maintenance leader", func() (bool, string) {
			return leader() != nil, fmt.Sprintf("%d live workers", len(env.live()))
		})
		p := leader()
		if p == nil {
			continue
		}
		// Half the kills wait (up to 2.5s) for the leader's fire step to be
		// stuck in its transaction; the others land after a random pause.
		mid := false
		if rand.IntN(2) == 0 {
			for until := time.Now().Add(2500 * time.Millisecond); !mid && time.Now().Before(until); {
				time.Sleep(10 * time.Millisecond)
				mid = stuck(p)
			}
		} else {
			time.Sleep(time.Duration(100+rand.IntN(1400)) * time.Millisecond)
			mid = stuck(p)
		}
		env.signal(p, syscall.SIGKILL)
		<-p.exited
		kills++
		if mid {
			midFire++
		}
		// Half the restarts come back under the killed instance, which
		// renews its lease at once; the others wait for it to expire.
		if rand.IntN(2) == 0 {
			start(p.instance)
		} else {
			start(newInstanceID(t))
		}
	}
	<-blockerDone
	time.Sleep(2 * time.Second) // the last leader catches up
	env.stopAll()

	covered, jobs := 0, 0
	for i := 0; i < schedules; i++ {
		name := fmt.Sprintf("crash_periodic_%d", i)
		info := periodicInfo(t, ctx, d, pool, name)
		fires := periodicFires(t, ctx, pool, name)
		sort.Slice(fires, func(a, b int) bool { return fires[a].FireAt.Before(fires[b].FireAt) })
		at := first
		for _, f := range fires {
			from := f.FireAt
			if f.MissedFrom != nil {
				from = *f.MissedFrom
			}
			switch {
			case f.Queue != "crash_periodic" || f.FireAt.Sub(first)%time.Second != 0 || from.After(f.FireAt):
				t.Fatalf("%s: job %+v is off the schedule", name, f)
			case info.Missed == driver.MissedSkip && (f.MissedFrom != nil || f.FireAt.Before(at)):
				t.Fatalf("%s (skip): job %d for %s after %s: a time enqueued twice or a missed span fired",
					name, f.ID, f.FireAt, at.Add(-time.Second))
			case info.Missed == driver.MissedFireOnce && !from.Equal(at):
				t.Fatalf("%s (fire_once): job %d covers %s .. %s, the times before it end at %s: a time enqueued twice or never",
					name, f.ID, from, f.FireAt, at.Add(-time.Second))
			}
			if info.Missed == driver.MissedFireOnce {
				covered += int(f.FireAt.Sub(from)/time.Second) + 1
			} else {
				covered++
			}
			at = f.FireAt.Add(time.Second)
		}
		jobs += len(fires)
		if info.Missed == driver.MissedFireOnce && !info.NextRunAt.Equal(at) {
			t.Fatalf("%s: its jobs cover up to %s, but its next time is %s: times skipped", name, at.Add(-time.Second),
				info.NextRunAt)
		}
		if info.NextRunAt.Before(at) {
			t.Fatalf("%s: next time %s, but a job covers %s already", name, info.NextRunAt, at.Add(-time.Second))
		}
	}
	t.Logf("%d kills of the leader (%d while a fire step waited in its transaction); %d jobs cover %d fire times",
		kills, midFire, jobs, covered)
	if kills < 5 || midFire < 1 || covered < 100 {
		t.Fatalf("the run was too thin to mean anything: %d kills, %d mid-fire, %d fire times", kills, midFire, covered)
	}
}

func ptr[T any](v T) *T { return &v }
