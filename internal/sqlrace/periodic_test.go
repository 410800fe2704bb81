package sqlrace

import (
	"math/rand/v2"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestPeriodicFireTimesAreEnqueuedOnceWhateverLeadersRace runs three would-be
// maintenance leaders over the same four "@every 1s" schedules, each on a
// simulated clock of its own (p_now) that mostly steps a second and sometimes
// jumps a few, so the leaders fire the same times at once, fire times another
// already fired, and catch up times missed on their own clock (fire_once:
// one job for the span). Each computes the step as the Go leader does and
// calls awa.fire_periodic_job. At the end the jobs of each schedule tile its
// fire times exactly: every time from the first to the one before the row's
// next_run_at is covered by one job (its own, or a span from missed_from to
// fire_at), none twice; every fired outcome is one job.
func TestPeriodicFireTimesAreEnqueuedOnceWhateverLeadersRace(t *testing.T) {
	ctx, pool := newDB(t, 2*time.Minute)
	const leaders, steps = 3, 150
	names := []string{"p0", "p1", "p2", "p3"}
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	setup := connect(t, ctx, pool)
	for _, n := range names {
		if _, err := setup.Exec(ctx, `SELECT * FROM awa.upsert_periodic_job($1, '@every 1s', 'race.k', '{}', '{"queue": "pr"}',
			p_now => $2)`, n, base); err != nil {
			t.Fatal(err)
		}
	}
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()

	type due struct {
		name     string
		revision int64
		next     *time.Time
	}
	var mu sync.Mutex
	outcomes := map[string]int{}
	firedJobs := map[int64]bool{}
	var wg sync.WaitGroup
	for l := 0; l < leaders; l++ {
		rng := rand.New(rand.NewPCG(uint64(l), 9))
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			for k := 0; k <= steps && runCtx.Err() == nil; {
				now := base.Add(time.Duration(k) * time.Second)
				rows, err := conn.Query(runCtx, `SELECT name, revision, next_run_at FROM awa.periodic_jobs_due($1)`, now)
				if err != nil {
					fail.set("due: %v", err)
					return
				}
				ds, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (due, error) {
					var d due
					return d, r.Scan(&d.name, &d.revision, &d.next)
				})
				if err != nil {
					fail.set("due rows: %v", err)
					return
				}
				for _, d := range ds {
					// The Go leader's step for "@every 1s" (periodicStep).
					var expected, fireAt *time.Time
					next := now.Add(time.Second)
					if d.next != nil {
						last := d.next.Add(now.Sub(*d.next) / time.Second * time.Second)
						expected, fireAt, next = d.next, &last, last.Add(time.Second)
					}
					time.Sleep(time.Duration(rng.IntN(1500)) * time.Microsecond)
					var outcome string
					var jobID *int64
					if err := conn.QueryRow(runCtx, `SELECT outcome, job_id FROM awa.fire_periodic_job($1, $2, $3, $4, $5, $6)`,
						d.name, d.revision, expected, fireAt, next, now).Scan(&outcome, &jobID); err != nil {
						fail.set("fire %s at %s: %v", d.name, now, err)
						return
					}
					mu.Lock()
					outcomes[outcome]++
					if jobID != nil {
						firedJobs[*jobID] = true
					}
					mu.Unlock()
				}
				if rng.IntN(10) == 0 {
					k += 2 + rng.IntN(3) // this leader missed a few seconds
				} else {
					k++
				}
			}
		})
	}
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}

	rows, err := setup.Query(ctx, `
		SELECT id, metadata #>> '{periodic,name}', (metadata #>> '{periodic,fire_at}')::timestamptz,
		       coalesce((metadata #>> '{periodic,missed_from}')::timestamptz, (metadata #>> '{periodic,fire_at}')::timestamptz)
		FROM awa.jobs WHERE queue = 'pr'`)
	if err != nil {
		t.Fatal(err)
	}
	type span struct {
		id       int64
		from, to time.Time
	}
	spans := map[string][]span{}
	jobs := 0
	for rows.Next() {
		var s span
		var name string
		if err := rows.Scan(&s.id, &name, &s.to, &s.from); err != nil {
			t.Fatal(err)
		}
		spans[name] = append(spans[name], s)
		jobs++
		if !firedJobs[s.id] {
			t.Fatalf("job %d (%s at %s) was reported by no fired outcome", s.id, name, s.to)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if jobs != outcomes["fired"] || jobs != len(firedJobs) {
		t.Fatalf("%d jobs, %d fired outcomes, %d distinct job ids", jobs, outcomes["fired"], len(firedJobs))
	}
	coalesced := 0
	for _, n := range names {
		var next time.Time
		if err := setup.QueryRow(ctx, `SELECT next_run_at FROM awa.periodic_jobs WHERE name = $1`, n).Scan(&next); err != nil {
			t.Fatal(err)
		}
		ss := spans[n]
		sort.Slice(ss, func(i, j int) bool { return ss[i].to.Before(ss[j].to) })
		at := base.Add(time.Second) // the first time: scheduled from base, one period on
		for _, s := range ss {
			if !s.from.Equal(at) {
				t.Fatalf("%s: a job covers %s .. %s, the time before it ended at %s: a time enqueued twice or never",
					n, s.from, s.to, at.Add(-time.Second))
			}
			if s.to.After(s.from) {
				coalesced++
			}
			at = s.to.Add(time.Second)
		}
		if !next.Equal(at) {
			t.Fatalf("%s: its jobs cover up to %s but its next time is %s", n, at.Add(-time.Second), next)
		}
		if len(ss) < steps/4 {
			t.Fatalf("%s: only %d jobs over %d simulated seconds", n, len(ss), steps)
		}
	}
	t.Logf("%d jobs (%d covering a missed span), outcomes %v", jobs, coalesced, outcomes)
	if outcomes["stale"] == 0 || coalesced == 0 {
		t.Fatalf("the leaders did not race: outcomes %v, %d missed spans", outcomes, coalesced)
	}
}
