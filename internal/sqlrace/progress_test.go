package sqlrace

import (
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
