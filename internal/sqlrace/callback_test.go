package sqlrace

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The callback tier's races (issue 8, docs/storage.md "Callbacks"): every
// test below runs the racing calls on separate real sessions released
// together, round after round, and checks that one resolution of a token
// applies, that the job's state is the winner's, and that the token is stale
// afterwards. callback_random_test.go runs them all at once.

// claimOne inserts one job of queue and claims it on q (no instance, the
// database's clock).
func claimOne(t *testing.T, ctx context.Context, q querier, queue string) claimed {
	t.Helper()
	if _, err := insertOne(ctx, q, queue, 2); err != nil {
		t.Fatal(err)
	}
	got, err := claim(ctx, q, queue, 1, nil)
	if err != nil || len(got) != 1 {
		t.Fatalf("claim: %v, %v; want one job", got, err)
	}
	return got[0]
}

// registerOne registers a callback of the attempt c (timeout 1 hour) and
// fails the test unless it applied.
func registerOne(t *testing.T, ctx context.Context, q querier, c claimed) string {
	t.Helper()
	o, token, err := registerCallback(ctx, q, c, time.Hour, nil)
	if err != nil || o != "applied" {
		t.Fatalf("register_callback of job %d: %q, %v", c.ID, o, err)
	}
	return token
}

// parkOne parks the attempt c and fails the test unless it is parked.
func parkOne(t *testing.T, ctx context.Context, q querier, c claimed) {
	t.Helper()
	fs, err := parkJobs(ctx, q, []claimed{c})
	if err != nil || len(fs) != 1 || fs[0].Outcome != "applied" || fs[0].State == nil || *fs[0].State != "waiting_external" {
		t.Fatalf("park of job %d: %v, %v; want applied waiting_external", c.ID, fs, err)
	}
}

// stateOf returns the job's one state in awa.jobs (failing on none or several).
func stateOf(t *testing.T, ctx context.Context, q querier, id int64) string {
	t.Helper()
	rows, err := jobRows(ctx, q, []int64{id})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows[id]) != 1 {
		t.Fatalf("job %d shows in awa.jobs as %v, want exactly one row", id, rows[id])
	}
	return rows[id][0]
}

// resolvedState is the state a resolution applied to a job leaves: resume
// runs a waiting handler on (running) or sends a parked job back (available).
func resolvedState(action string, parked bool) string {
	switch action {
	case "complete":
		return "completed"
	case "fail":
		return "failed"
	case "retry":
		return "retryable"
	}
	if parked {
		return "available"
	}
	return "running"
}

// raced runs a and b at once on their own goroutines, each after a random
// delay of up to jitter, and waits for both.
func raced(rng *rand.Rand, jitter time.Duration, a, b func()) {
	da, db := time.Duration(rng.Int64N(int64(jitter)+1)), time.Duration(rng.Int64N(int64(jitter)+1))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, f := range []struct {
		d   time.Duration
		run func()
	}{{da, a}, {db, b}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			time.Sleep(f.d)
			f.run()
		}()
	}
	close(start)
	wg.Wait()
}

// TestCallbackResolutionRacingItsRivalAppliesOnce: a resolution of a token
// (each of complete, fail, retry, resume) races, on another session, a rival
// that would end the same wait: a second resolution of the token (any
// action), the callback-timeout rescue (rescue_expired_callbacks with a now
// past the timeout) or an operator's cancel_job; for a parked job and for an
// attempt waiting in sequence. Every round: a second resolution or the
// rescue and the resolution apply exactly once between them; a cancel
// applies unless the resolution ended the job first (then it is refused with
// AW021 naming the terminal state, or is stale against the attempt), and
// after a resume or retry it cancels the job in its new state; the job shows
// once in awa.jobs in the winner's state; any later resolution of the token
// is stale.
func TestCallbackResolutionRacingItsRivalAppliesOnce(t *testing.T) {
	const queue = "cb_rival"
	ctx, pool := newDB(t, 90*time.Second)
	setup, a, b := connect(t, ctx, pool), connect(t, ctx, pool), connect(t, ctx, pool)
	rng := rand.New(rand.NewPCG(8, 1))
	wins := map[string]int{}
	round := 0
	for _, parked := range []bool{true, false} {
		for _, rival := range []string{"second", "rescue", "cancel"} {
			for _, action := range resolutions {
				for rep := 0; rep < 5; rep++ {
					round++
					name := fmt.Sprintf("round %d (parked %v, %s vs %s)", round, parked, action, rival)
					c := claimOne(t, ctx, setup, queue)
					token := registerOne(t, ctx, setup, c)
					if parked {
						parkOne(t, ctx, setup, c)
					}
					second := resolutions[rng.IntN(len(resolutions))]
					var (
						r, r2       callbackOutcome
						rErr, xErr  error
						rescued     []finalized
						cancelled   finalized
						rivalWon    bool
						rivalState  string
						cancelState string
					)
					raced(rng, time.Millisecond, func() {
						r, rErr = resolveCallback(ctx, a, action, token, "first")
					}, func() {
						switch rival {
						case "second":
							r2, xErr = resolveCallback(ctx, b, second, token, "second")
							rivalWon, rivalState = r2.Outcome == "applied", r2.state()
						case "rescue":
							var all []finalized
							all, xErr = rescueExpiredCallbacks(ctx, b, 1000, time.Now().Add(2*time.Hour))
							for _, f := range all {
								if f.JobID == c.ID {
									rescued = append(rescued, f)
								}
							}
							if len(rescued) == 1 && rescued[0].Outcome == "applied" && rescued[0].State != nil {
								rivalWon, rivalState = true, *rescued[0].State
							}
						default:
							cancelled, xErr = cancelJob(ctx, b, c.ID)
							if sqlState(xErr) == "AW021" {
								cancelState, xErr = refusedState(xErr)
							}
							rivalWon = cancelled.Outcome == "applied"
							rivalState = "cancelled"
						}
					})
					if rErr != nil || xErr != nil {
						t.Fatalf("%s: resolution %v, rival %v", name, rErr, xErr)
					}
					if (r.Outcome == "applied" || r.JobID != nil) && (r.JobID == nil || *r.JobID != c.ID) {
						t.Fatalf("%s: resolution names job %v, want %d", name, r.JobID, c.ID)
					}
					first := r.Outcome == "applied"
					if first && r.state() != resolvedState(action, parked) {
						t.Fatalf("%s: resolution applied with state %s, want %s", name, r.state(), resolvedState(action, parked))
					}
					want := ""
					switch {
					case rival == "cancel":
						// The cancel loses only to a resolution that closed
						// the attempt or ended the job first.
						switch {
						case !first && !rivalWon:
							t.Fatalf("%s: neither the resolution (%v) nor the cancel (%v) applied", name, r, cancelled)
						case first && cancelState != "":
							if !terminal(cancelState) || cancelState != r.state() {
								t.Fatalf("%s: cancel refused naming state %s after the resolution left %s", name, cancelState, r.state())
							}
							want = r.state()
						case first && !rivalWon:
							if parked || action == "resume" || cancelled.Outcome != "stale" {
								t.Fatalf("%s: cancel %v after an applied %s", name, cancelled, action)
							}
							want = r.state()
						case first:
							if action != "resume" && action != "retry" {
								t.Fatalf("%s: cancel applied after the job was %s", name, r.state())
							}
							want = "cancelled"
						default:
							want = "cancelled"
						}
					case first == rivalWon:
						t.Fatalf("%s: resolution %v, rival applied %v (%v %v): want exactly one", name, r, rivalWon, r2, rescued)
					case first:
						want = r.state()
					default:
						want = rivalState
						if rival == "second" && rivalState != resolvedState(second, parked) {
							t.Fatalf("%s: second %s applied with state %s", name, second, rivalState)
						}
					}
					switch {
					case first && rivalWon:
						wins[rival+": both"]++
					case first:
						wins[rival+": resolution"]++
					default:
						wins[rival+": rival"]++
					}
					if got := stateOf(t, ctx, setup, c.ID); got != want {
						t.Fatalf("%s: job state %s, want %s (resolution %v)", name, got, want, r)
					}
					for _, late := range resolutions {
						if o, err := resolveCallback(ctx, setup, late, token, "late"); err != nil || o.Outcome != "stale" {
							t.Fatalf("%s: a later %s of the token = %v, %v; want stale", name, late, o, err)
						}
					}
					if want == "running" { // resumed in sequence: the handler takes the payload and finishes
						by := "first"
						if !first {
							by = "second"
						}
						status, payload, err := takeCallbackResult(ctx, setup, c, token)
						if err != nil || status != "resumed" || !strings.Contains(string(payload), by) {
							t.Fatalf("%s: take = %s %s, %v; want the %s resolver's payload", name, status, payload, err, by)
						}
						if n, err := completeApplied(ctx, setup, []claimed{c}); err != nil || n != 1 {
							t.Fatalf("%s: completion after the resume: %d, %v", name, n, err)
						}
					}
				}
			}
		}
	}
	if _, err := rescueExpiredCallbacks(ctx, setup, 1000, time.Now().Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n, w, err := callbackLeftovers(ctx, setup); err != nil || n != 0 || w != 0 {
		var left string
		_ = setup.QueryRow(ctx, `SELECT string_agg(format('job %s resumed %s', job_id, resumed_at IS NOT NULL), ', ') FROM awa.callbacks`).Scan(&left)
		t.Fatalf("left after a rescue past every timeout: %d registrations (%s), %d parked rows (%v); want none", n, left, w, err)
	}
	t.Logf("%d rounds; who applied: %v", round, wins)
}

// refusedState returns the state an AW021 of cancel_job names ("job N is
// already STATE").
func refusedState(err error) (string, error) {
	msg := err.Error()
	i := strings.Index(msg, " is already ")
	if i < 0 {
		return "", err
	}
	rest := msg[i+len(" is already "):]
	if j := strings.IndexAny(rest, " ("); j >= 0 {
		rest = rest[:j]
	}
	return rest, nil
}

// TestCallbackResolutionRacingThePark: a handler parks its attempt while,
// on another session, its callback is resolved (each action in turn): the
// callback may come before, while or after the park. Every round the
// resolution applies exactly once: complete, fail and retry that come first
// close the attempt and the park is stale; a resume that comes first makes
// the park send the job straight back (available); after the park each
// resolves the parked job. The job ends in the resolution's state, nothing
// is left parked or registered, and a second resolution is stale.
func TestCallbackResolutionRacingThePark(t *testing.T) {
	const queue = "cb_park"
	ctx, pool := newDB(t, 60*time.Second)
	setup, handler, resolver := connect(t, ctx, pool), connect(t, ctx, pool), connect(t, ctx, pool)
	rng := rand.New(rand.NewPCG(8, 2))
	orders := map[string]int{}
	for round := 0; round < 120; round++ {
		action := resolutions[round%len(resolutions)]
		c := claimOne(t, ctx, setup, queue)
		token := registerOne(t, ctx, setup, c)
		var (
			parked     []finalized
			r          callbackOutcome
			errP, errR error
		)
		raced(rng, 2*time.Millisecond, func() {
			parked, errP = parkJobs(ctx, handler, []claimed{c})
		}, func() {
			r, errR = resolveCallback(ctx, resolver, action, token, "early")
		})
		if errP != nil || errR != nil || len(parked) != 1 {
			t.Fatalf("round %d (%s): park %v, %v; resolution %v", round, action, parked, errP, errR)
		}
		if r.Outcome != "applied" {
			t.Fatalf("round %d: %s racing the park = %v, want applied", round, action, r)
		}
		p := parked[0]
		var want string
		switch {
		case p.Outcome == "stale": // the callback closed the attempt before the park
			if action == "resume" {
				t.Fatalf("round %d: the park is stale after a resume", round)
			}
			want = resolvedState(action, false)
			orders["callback first"]++
		case p.State != nil && *p.State == "available": // resumed before the park
			if action != "resume" || r.state() != "running" {
				t.Fatalf("round %d: park sent the job back after %s %v", round, action, r)
			}
			want = "available"
			orders["resume first"]++
		case p.State != nil && *p.State == "waiting_external":
			want = resolvedState(action, true)
			if r.state() != want {
				t.Fatalf("round %d: %s of the parked job = %v, want state %s", round, action, r, want)
			}
			orders["park first"]++
		default:
			t.Fatalf("round %d: park = %v", round, p)
		}
		if got := stateOf(t, ctx, setup, c.ID); got != want {
			t.Fatalf("round %d (%s, park %v): job state %s, want %s", round, action, p, got, want)
		}
		if o, err := resolveCallback(ctx, setup, resolutions[rng.IntN(4)], token, "late"); err != nil || o.Outcome != "stale" {
			t.Fatalf("round %d: second resolution = %v, %v; want stale", round, o, err)
		}
		if n, w, err := callbackLeftovers(ctx, setup); err != nil || n != 0 || w != 0 {
			t.Fatalf("round %d: left %d registrations, %d parked rows (%v)", round, n, w, err)
		}
	}
	t.Logf("orders: %v", orders)
}

// TestResumeRacingTakeCallbackResultHandsThePayloadOver: a handler waiting in
// sequence polls take_callback_result while its callback is resumed on one
// session and, every other round, completed or failed on another. Every
// round exactly one resolution applies. After a resume, the handler gets the
// payload exactly once ('resumed'; later takes are stale), goes on and
// completes its attempt; after a complete or fail it sees only 'waiting'
// then 'stale', and its own completion is stale.
func TestResumeRacingTakeCallbackResultHandsThePayloadOver(t *testing.T) {
	const queue = "cb_take"
	ctx, pool := newDB(t, 60*time.Second)
	setup, handler, r1, r2 := connect(t, ctx, pool), connect(t, ctx, pool), connect(t, ctx, pool), connect(t, ctx, pool)
	rng := rand.New(rand.NewPCG(8, 3))
	wins := map[string]int{}
	for round := 0; round < 80; round++ {
		c := claimOne(t, ctx, setup, queue)
		token := registerOne(t, ctx, setup, c)
		rival := []string{"", "complete", "", "fail"}[round%4]
		var (
			wg               sync.WaitGroup
			statuses         []string
			payload          []byte
			resume, other    callbackOutcome
			errH, errA, errB error
		)
		start := make(chan struct{})
		wg.Add(3)
		go func() { // the handler
			defer wg.Done()
			<-start
			for i := 0; i < 5000; i++ {
				status, result, err := takeCallbackResult(ctx, handler, c, token)
				if err != nil {
					errH = err
					return
				}
				statuses = append(statuses, status)
				if status != "waiting" {
					payload = result
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			<-start
			time.Sleep(time.Duration(rng.IntN(1500)) * time.Microsecond)
			resume, errA = resolveCallback(ctx, r1, "resume", token, fmt.Sprintf("resume %d", round))
		}()
		go func() {
			defer wg.Done()
			<-start
			if rival != "" {
				time.Sleep(time.Duration(rng.IntN(1500)) * time.Microsecond)
				other, errB = resolveCallback(ctx, r2, rival, token, "other")
			}
		}()
		close(start)
		wg.Wait()
		if errH != nil || errA != nil || errB != nil {
			t.Fatalf("round %d: take %v, resume %v, %s %v", round, errH, errA, rival, errB)
		}
		last := statuses[len(statuses)-1]
		for _, s := range statuses[:len(statuses)-1] {
			if s != "waiting" {
				t.Fatalf("round %d: take statuses %v", round, statuses)
			}
		}
		resumed := resume.Outcome == "applied"
		if rival != "" && resumed == (other.Outcome == "applied") {
			t.Fatalf("round %d: resume %v and %s %v: want exactly one applied", round, resume, rival, other)
		}
		if rival == "" && !resumed {
			t.Fatalf("round %d: resume %v alone, want applied", round, resume)
		}
		if resumed {
			wins["resume"]++
			var p struct{ By string }
			if last != "resumed" || json.Unmarshal(payload, &p) != nil || p.By != fmt.Sprintf("resume %d", round) {
				t.Fatalf("round %d: the handler's takes %v ended with payload %s, want the resume's", round, statuses, payload)
			}
			if s, _, err := takeCallbackResult(ctx, handler, c, token); err != nil || s != "stale" {
				t.Fatalf("round %d: a second take = %s, %v; want stale (handed over once)", round, s, err)
			}
			if got := stateOf(t, ctx, setup, c.ID); got != "running" {
				t.Fatalf("round %d: after the take the job is %s, want running", round, got)
			}
			if n, err := completeApplied(ctx, handler, []claimed{c}); err != nil || n != 1 {
				t.Fatalf("round %d: the handler's completion: %d, %v", round, n, err)
			}
			if got := stateOf(t, ctx, setup, c.ID); got != "completed" {
				t.Fatalf("round %d: job %s, want completed", round, got)
			}
			continue
		}
		wins[rival]++
		if last != "stale" {
			t.Fatalf("round %d: after %s the handler's takes are %v, want stale", round, rival, statuses)
		}
		if fs, err := complete(ctx, handler, []claimed{c}); err != nil || len(fs) != 1 || fs[0].Outcome != "stale" {
			t.Fatalf("round %d: the handler's completion after %s = %v, %v; want stale", round, rival, fs, err)
		}
		if got, want := stateOf(t, ctx, setup, c.ID), resolvedState(rival, false); got != want {
			t.Fatalf("round %d: job %s, want %s", round, got, want)
		}
	}
	t.Logf("winners: %v", wins)
}

// TestRegisterCallbackRacingCancelLeavesNoLiveToken: a handler registers a
// callback while an operator cancels its job. The cancel always applies (the
// registration does not close the attempt); a registration that came first
// is applied, yet its token resolves nothing afterwards (each action stale),
// take_callback_result says stale, the park is stale (not AW022), and the
// job counts as cancelled, not waiting_external.
func TestRegisterCallbackRacingCancelLeavesNoLiveToken(t *testing.T) {
	const queue = "cb_cancel"
	ctx, pool := newDB(t, 60*time.Second)
	setup, handler, operator := connect(t, ctx, pool), connect(t, ctx, pool), connect(t, ctx, pool)
	rng := rand.New(rand.NewPCG(8, 4))
	registered := 0
	for round := 0; round < 80; round++ {
		c := claimOne(t, ctx, setup, queue)
		var (
			outcome, token string
			f              finalized
			errR, errC     error
		)
		raced(rng, 2*time.Millisecond, func() {
			outcome, token, errR = registerCallback(ctx, handler, c, time.Minute, nil)
		}, func() {
			f, errC = cancelJob(ctx, operator, c.ID)
		})
		if errR != nil || errC != nil {
			t.Fatalf("round %d: register %v, cancel %v", round, errR, errC)
		}
		if f.Outcome != "applied" || f.State == nil || *f.State != "cancelled" {
			t.Fatalf("round %d: cancel = %v, want applied cancelled", round, f)
		}
		if got := stateOf(t, ctx, setup, c.ID); got != "cancelled" {
			t.Fatalf("round %d: job %s, want cancelled", round, got)
		}
		if outcome == "applied" {
			registered++
			for _, action := range resolutions {
				if o, err := resolveCallback(ctx, setup, action, token, "late"); err != nil || o.Outcome != "stale" {
					t.Fatalf("round %d: %s of the cancelled attempt's token = %v, %v; want stale", round, action, o, err)
				}
			}
			if s, _, err := takeCallbackResult(ctx, handler, c, token); err != nil || s != "stale" {
				t.Fatalf("round %d: take = %s, %v; want stale", round, s, err)
			}
		} else if outcome != "stale" {
			t.Fatalf("round %d: register = %q", round, outcome)
		}
		if fs, err := parkJobs(ctx, handler, []claimed{c}); err != nil || len(fs) != 1 || fs[0].Outcome != "stale" {
			t.Fatalf("round %d: park after the cancel = %v, %v; want stale", round, fs, err)
		}
		var running, waiting int64
		if err := setup.QueryRow(ctx, `SELECT running, waiting_external FROM awa.queue_counts($1)`, queue).Scan(&running, &waiting); err != nil {
			t.Fatal(err)
		}
		if running != 0 || waiting != 0 {
			t.Fatalf("round %d: queue counts running %d, waiting_external %d; want 0, 0", round, running, waiting)
		}
	}
	t.Logf("registrations applied before the cancel: %d of 80", registered)
}

// TestCallbackCallsOutsideReadCommittedAreRefused: in a transaction at
// REPEATABLE READ or SERIALIZABLE whose snapshot predates a park on another
// session, each resolution is refused with AW040 naming it and the level,
// and so are register_callback, park_jobs, take_callback_result and
// rescue_expired_callbacks: nothing is written (the job stays parked, the
// other attempt open and registered). Then the same session, whose default
// level is that level, runs each call in its own READ COMMITTED transaction
// (as the Go driver does per call) and it applies.
func TestCallbackCallsOutsideReadCommittedAreRefused(t *testing.T) {
	for _, level := range isoLevels[1:] {
		for _, action := range resolutions {
			t.Run(levelName(level)+"/"+action, func(t *testing.T) {
				const queue = "cb_iso"
				ctx, pool := newDB(t, 30*time.Second)
				conn, other := connect(t, ctx, pool), connect(t, ctx, pool)
				if _, err := conn.Exec(ctx, `SET default_transaction_isolation = '`+levelName(level)+`'`); err != nil {
					t.Fatal(err)
				}
				c := claimOne(t, ctx, other, queue)
				token := registerOne(t, ctx, other, c)
				seq := claimOne(t, ctx, other, queue) // an attempt waiting in sequence
				seqToken := registerOne(t, ctx, other, seq)

				tx := beginAt(t, ctx, conn, level)
				parkOne(t, ctx, other, c) // after the snapshot
				_, err := resolveCallback(ctx, tx, action, token, "refused")
				wantRefused(t, err, "awa."+action+"_external", level)
				_ = tx.Rollback(ctx)

				refused := []struct {
					fn   string
					call func() error
				}{
					{"awa.register_callback", func() error { _, _, err := registerCallback(ctx, conn, seq, time.Hour, nil); return err }},
					{"awa.park_jobs", func() error { _, err := parkJobs(ctx, conn, []claimed{seq}); return err }},
					{"awa.take_callback_result", func() error { _, _, err := takeCallbackResult(ctx, conn, seq, seqToken); return err }},
					{"awa.rescue_expired_callbacks", func() error {
						_, err := rescueExpiredCallbacks(ctx, conn, 1000, time.Now().Add(2*time.Hour))
						return err
					}},
					{"awa." + action + "_external", func() error { _, err := resolveCallback(ctx, conn, action, seqToken, "x"); return err }},
				}
				for _, r := range refused {
					wantRefused(t, r.call(), r.fn, level)
				}
				if got := stateOf(t, ctx, other, c.ID); got != "waiting_external" {
					t.Fatalf("after the refusals the parked job is %s", got)
				}
				if got := stateOf(t, ctx, other, seq.ID); got != "waiting_external" {
					t.Fatalf("after the refusals the waiting attempt is %s", got)
				}
				if n, w, err := callbackLeftovers(ctx, other); err != nil || n != 1 || w != 1 {
					t.Fatalf("after the refusals: %d registrations, %d parked (%v); want 1, 1", n, w, err)
				}

				rc := func(f func(tx pgx.Tx) error) {
					t.Helper()
					if err := pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, f); err != nil {
						t.Fatal(err)
					}
				}
				rc(func(tx pgx.Tx) error {
					o, err := resolveCallback(ctx, tx, action, token, "applied")
					if err == nil && (o.Outcome != "applied" || o.state() != resolvedState(action, true)) {
						err = fmt.Errorf("%s of the parked job at read committed = %v", action, o)
					}
					return err
				})
				rc(func(tx pgx.Tx) error {
					o, err := resolveCallback(ctx, tx, "resume", seqToken, "applied")
					if err == nil && o.Outcome != "applied" {
						err = fmt.Errorf("resume of the waiting attempt at read committed = %v", o)
					}
					return err
				})
				rc(func(tx pgx.Tx) error {
					s, _, err := takeCallbackResult(ctx, tx, seq, seqToken)
					if err == nil && s != "resumed" {
						err = fmt.Errorf("take at read committed = %s", s)
					}
					return err
				})
				rc(func(tx pgx.Tx) error {
					o, _, err := registerCallback(ctx, tx, seq, time.Second, nil)
					if err == nil && o != "applied" {
						err = fmt.Errorf("register at read committed = %s", o)
					}
					return err
				})
				rc(func(tx pgx.Tx) error {
					fs, err := rescueExpiredCallbacks(ctx, tx, 1000, time.Now().Add(time.Minute))
					if err == nil && (len(fs) != 1 || fs[0].JobID != seq.ID || fs[0].Outcome != "applied") {
						err = fmt.Errorf("rescue at read committed = %v", fs)
					}
					return err
				})
				if got, want := stateOf(t, ctx, other, c.ID), resolvedState(action, true); got != want {
					t.Fatalf("parked job %s after the %s at read committed, want %s", got, action, want)
				}
				if got := stateOf(t, ctx, other, seq.ID); got != "retryable" {
					t.Fatalf("the timed-out attempt's job is %s, want retryable", got)
				}
			})
		}
	}
}
