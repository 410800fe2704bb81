package sqlrace

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestSetProgressRacingItsCloserNeverWritesToAClosedAttempt races, round
// after round, a handler writing its progress (awa.set_progress in a loop,
// checkpoint k = 1, 2, ... on its own connection, until a write is stale)
// against the attempt's closer on another connection: stale-heartbeat rescue,
// an operator's cancel_job, or the worker's own complete_jobs, in turn. Every
// round: the closer applies exactly once; the handler's outcomes are some
// applied writes then only stale ones (never applied after stale); and the
// checkpoint left is the last applied write (rescue, cancel), or none after
// a completion: a write after the closure would have re-created it.
func TestSetProgressRacingItsCloserNeverWritesToAClosedAttempt(t *testing.T) {
	const (
		queue  = "progress_race"
		rounds = 90
	)
	instance := "00000000-0000-4000-8000-00000000cafe" // never heartbeats: rescue may take its claims
	ctx, pool := newDB(t, 90*time.Second)
	handler := connect(t, ctx, pool)
	closer := connect(t, ctx, pool)
	wins := map[string]int{}
	appliedDuring := 0

	for round := 0; round < rounds; round++ {
		closeBy := []string{"rescue", "cancel", "complete"}[round%3]
		if _, err := insertBatch(ctx, handler, queue, 2, 1); err != nil {
			t.Fatal(err)
		}
		got, err := claim(ctx, handler, queue, 1, instance)
		if err != nil || len(got) != 1 {
			t.Fatalf("round %d: claimed %v (%v), want one job", round, got, err)
		}
		c := got[0]
		setProgress := func(conn *pgx.Conn, k int) (string, error) {
			var outcome string
			err := conn.QueryRow(ctx, `SELECT outcome::text FROM awa.set_progress($1, $2, $3, $4, $5)`,
				c.ID, c.RunLease, c.ClaimSlot, c.ReceiptID, fmt.Sprintf(`{"k": %d}`, k)).Scan(&outcome)
			return outcome, err
		}
		if o, err := setProgress(handler, 0); err != nil || o != "applied" {
			t.Fatalf("round %d: first set_progress = %q, %v", round, o, err)
		}

		var (
			wg       sync.WaitGroup
			barrier  = make(chan struct{})
			outcomes []string
			closed   []finalized
			errH     error
			errC     error
		)
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-barrier
			for k := 1; k <= 500; k++ {
				o, err := setProgress(handler, k)
				if err != nil {
					errH = err
					return
				}
				outcomes = append(outcomes, o)
				if o == "stale" {
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			<-barrier
			time.Sleep(time.Duration(round%4) * 500 * time.Microsecond)
			switch closeBy {
			case "rescue":
				closed, errC = collectFinalized(closer.Query(ctx, `
					SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text
					FROM awa.rescue_stale_claims(interval '1 second', 1000, now() + interval '1 hour') AS f`))
			case "cancel":
				closed, errC = collectFinalized(closer.Query(ctx, `
					SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text FROM awa.cancel_job($1) AS f`, c.ID))
			default:
				closed, errC = complete(ctx, closer, []claimed{c})
			}
		}()
		close(barrier)
		wg.Wait()
		if errH != nil || errC != nil {
			t.Fatalf("round %d (%s): handler error %v, closer error %v", round, closeBy, errH, errC)
		}
		if len(closed) != 1 || closed[0].JobID != c.ID || closed[0].Outcome != "applied" {
			t.Fatalf("round %d: %s = %v, want the attempt closed once", round, closeBy, closed)
		}
		wins[closeBy]++

		seq := strings.Join(outcomes, ",")
		last := strings.LastIndex(seq, "applied")
		if len(outcomes) == 0 || outcomes[len(outcomes)-1] != "stale" || (last >= 0 && strings.Contains(seq[:last], "stale")) {
			t.Fatalf("round %d (%s): handler outcomes %s, want applied writes then one stale", round, closeBy, seq)
		}
		appliedK := len(outcomes) - 1 // writes 1..appliedK were applied
		appliedDuring += appliedK

		var progress []byte
		err = pool.QueryRow(ctx, `SELECT progress FROM awa.job_progress($1)`, c.ID).Scan(&progress)
		switch {
		case closeBy == "complete":
			if err != pgx.ErrNoRows {
				t.Fatalf("round %d: after complete_jobs the checkpoint is %s (%v), want none", round, progress, err)
			}
		case err != nil:
			t.Fatalf("round %d (%s): job_progress: %v", round, closeBy, err)
		default:
			var cp struct{ K int }
			if err := json.Unmarshal(progress, &cp); err != nil || cp.K != appliedK {
				t.Fatalf("round %d (%s): checkpoint %s, want the last applied write {\"k\": %d}", round, closeBy, progress, appliedK)
			}
		}
	}
	t.Logf("closers: %v; progress writes applied while racing them: %d", wins, appliedDuring)
}

// TestLongAttemptReportingProgressNeverPinsTheLeaseRing runs, on separate
// sessions at once, a long attempt writing its progress every few
// milliseconds, a worker whose short jobs each escalate (one set_progress)
// and complete, and a maintenance session that rotates and prunes the lease
// and claim rings in turn, until the lease ring has rotated 80 times (10
// wraps of 8 slots). The lease ring never stops rotating (no skipped_busy
// run longer than a wrap), every write of the long attempt is applied, its
// single lease is carried along, and it completes exactly once with the
// receipt it got at claim time.
func TestLongAttemptReportingProgressNeverPinsTheLeaseRing(t *testing.T) {
	const wraps = 10
	ctx, pool := newDB(t, 120*time.Second)
	setup := connect(t, ctx, pool)
	if _, err := insertBatch(ctx, setup, "long", 2, 1); err != nil {
		t.Fatal(err)
	}
	got, err := claim(ctx, setup, "long", 1, nil)
	if err != nil || len(got) != 1 {
		t.Fatalf("claim of the long job: %v, %v", got, err)
	}
	long := got[0]
	setProgress := func(conn *pgx.Conn, c claimed, k int) (string, error) {
		var outcome string
		err := conn.QueryRow(ctx, `SELECT outcome::text FROM awa.set_progress($1, $2, $3, $4, $5)`,
			c.ID, c.RunLease, c.ClaimSlot, c.ReceiptID, fmt.Sprintf(`{"k": %d}`, k)).Scan(&outcome)
		return outcome, err
	}

	ctx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	// The workers stop between calls once maintenance is done, so no write
	// is cut off mid-flight (ctx ends only on a failure).
	done := make(chan struct{})
	running := func() bool {
		select {
		case <-done:
			return false
		default:
			return ctx.Err() == nil
		}
	}
	var (
		wg        sync.WaitGroup
		writes    int
		rotations = map[string]int{}
		busyRun   int // longest run of consecutive skipped_busy lease rotations
	)
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) { // the long attempt's handler
		for running() {
			writes++
			if o, err := setProgress(conn, long, writes); err != nil || o != "applied" {
				fail.set("long attempt write %d: %q, %v", writes, o, err)
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	})
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) { // short escalated jobs
		for running() {
			if _, err := insertBatch(ctx, conn, "short", 2, 1); err != nil {
				fail.set("insert: %v", err)
				return
			}
			cs, err := claim(ctx, conn, "short", 1, nil)
			if err == nil && len(cs) == 1 {
				if _, err = setProgress(conn, cs[0], 1); err == nil {
					_, err = complete(ctx, conn, cs)
				}
			}
			if err != nil {
				fail.set("short job: %v", err)
				return
			}
		}
	})
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) { // maintenance
		busy := 0
		defer close(done)
		for ctx.Err() == nil && rotations["lease"] < 8*wraps {
			for _, ring := range []string{"lease", "claim"} {
				_, err := ringOp(ctx, conn, "prune", ring)
				r, err2 := ringOp(ctx, conn, "rotate", ring)
				if err != nil || err2 != nil {
					fail.set("%s maintenance: %v, %v", ring, err, err2)
					return
				}
				if r.Outcome == "rotated" {
					rotations[ring]++
				}
				if ring == "lease" {
					if r.Outcome == "skipped_busy" {
						busy++
						busyRun = max(busyRun, busy)
					} else {
						busy = 0
					}
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	if rotations["lease"] < 8*wraps {
		t.Fatalf("the lease ring rotated %d times before the deadline, want %d (%d wraps)", rotations["lease"], 8*wraps, wraps)
	}
	if busyRun > 8 {
		t.Fatalf("lease rotation was skipped busy %d times in a row: a slot stayed pinned for more than a wrap", busyRun)
	}

	check := context.Background()
	var leases int
	if err := pool.QueryRow(check, `SELECT count(*) FROM awa.leases WHERE job_id = $1`, long.ID).Scan(&leases); err != nil {
		t.Fatal(err)
	}
	if leases != 1 {
		t.Fatalf("the long attempt has %d leases, want its one lease carried along", leases)
	}
	var k int
	if err := pool.QueryRow(check, `SELECT (progress ->> 'k')::int FROM awa.job_progress($1)`, long.ID).Scan(&k); err != nil || k != writes {
		t.Fatalf("checkpoint k = %d (%v), want the last of its %d writes", k, err, writes)
	}
	res, err := complete(check, pool, []claimed{long})
	if err != nil || len(res) != 1 || res[0].Outcome != "applied" {
		t.Fatalf("completion of the long attempt = %v, %v; want applied", res, err)
	}
	if res, err := complete(check, pool, []claimed{long}); err != nil || len(res) != 1 || res[0].Outcome != "stale" {
		t.Fatalf("second completion = %v, %v; want stale", res, err)
	}
	t.Logf("lease rotations %d, claim rotations %d, long attempt writes %d, longest skipped_busy run %d",
		rotations["lease"], rotations["claim"], writes, busyRun)
}
