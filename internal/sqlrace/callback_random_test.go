package sqlrace

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// cbToken is a registered callback of the randomized run: its token, the
// attempt it belongs to, and its offset: when the run's moving front (the
// time since the run started) reaches it, resolvers, the operator and the
// timeout rescue all go for it at once.
type cbToken struct {
	id        string
	c         claimed
	off       time.Duration
	contested bool // resolvers go for it (the others are left to the operator and the rescues)
}

// cbEvent is one call's effect on a job, as the caller saw it.
type cbEvent struct {
	who, outcome, state string
}

// cbLedger records, from every session, what each call returned.
type cbLedger struct {
	mu       sync.Mutex
	tokens   []*cbToken                // every token, in registration order
	byID     map[string]*cbToken       // token -> registration
	applied  map[string][]string       // token -> resolutions that applied
	latest   map[int64]string          // job -> its newest token
	events   map[int64][]cbEvent       // job -> what applied to it
	refused  map[int64][]string        // job -> states cancel_job refused naming (AW021)
	counts   map[string]int            // who/outcome -> calls, for the log
	rings    map[string]map[string]int // ring -> outcome -> count
	handoffs []*cbToken                // attempts waiting in sequence, for the handler
}

func newCBLedger() *cbLedger {
	return &cbLedger{byID: map[string]*cbToken{}, applied: map[string][]string{}, latest: map[int64]string{},
		events: map[int64][]cbEvent{}, refused: map[int64][]string{}, counts: map[string]int{},
		rings: map[string]map[string]int{}}
}

func (l *cbLedger) addToken(k *cbToken) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tokens = append(l.tokens, k)
	l.byID[k.id] = k
	l.latest[k.c.ID] = k.id
}

// near picks a token whose offset is within window of the front (a
// contested one when contested).
func (l *cbLedger) near(rng *rand.Rand, front, window time.Duration, contested bool) *cbToken {
	l.mu.Lock()
	defer l.mu.Unlock()
	var in []*cbToken
	for _, k := range l.tokens {
		if d := k.off - front; d > -window && d < window && (k.contested || !contested) {
			in = append(in, k)
		}
	}
	if len(in) == 0 {
		return nil
	}
	return in[rng.IntN(len(in))]
}

func (l *cbLedger) event(job int64, who, outcome, state string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.counts[who+" "+outcome]++
	if outcome == "applied" {
		l.events[job] = append(l.events[job], cbEvent{who, outcome, state})
	}
}

func (l *cbLedger) finalized(who string, fs []finalized) {
	for _, f := range fs {
		s := ""
		if f.State != nil {
			s = *f.State
		}
		l.event(f.JobID, who, f.Outcome, s)
	}
}

func (l *cbLedger) resolution(k *cbToken, action string, o callbackOutcome) {
	l.event(k.c.ID, "resolve "+action, o.Outcome, o.state())
	if o.Outcome == "applied" {
		l.mu.Lock()
		l.applied[k.id] = append(l.applied[k.id], action)
		l.mu.Unlock()
	}
}

func (l *cbLedger) ring(ring, outcome string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rings[ring] == nil {
		l.rings[ring] = map[string]int{}
	}
	l.rings[ring][outcome]++
}

func (l *cbLedger) handOff(k *cbToken) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.handoffs = append(l.handoffs, k)
}

func (l *cbLedger) takeHandoffs() []*cbToken {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.handoffs
	l.handoffs = nil
	return out
}

// terminalEvents returns what ended the job (applied with a terminal state).
func (l *cbLedger) terminalEvents(job int64) []cbEvent {
	var out []cbEvent
	for _, e := range l.events[job] {
		if terminal(e.state) {
			out = append(out, e)
		}
	}
	return out
}

// atReadCommitted runs call on conn, whose sessions' default isolation is
// level: at READ COMMITTED directly; otherwise in a READ COMMITTED
// transaction of its own (as the Go driver runs each call), after, when
// bare, one call at the session's level, which must be refused with AW040
// naming fn and the level. call must record nothing itself: the caller
// records what it returned once atReadCommitted succeeds.
func atReadCommitted(ctx context.Context, conn *pgx.Conn, level pgx.TxIsoLevel, fn string, bare bool,
	call func(q querier) error) error {
	if level == pgx.ReadCommitted {
		return call(conn)
	}
	if bare {
		err := call(conn)
		if sqlState(err) != "AW040" || !strings.Contains(err.Error(), fn) || !strings.Contains(err.Error(), levelName(level)) {
			return fmt.Errorf("%s at %s: %v; want AW040 naming both", fn, levelName(level), err)
		}
	}
	return pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(tx pgx.Tx) error { return call(tx) })
}

// TestCallbackRandomizedRunResolvesEachTokenOnceAndLosesNoJob: 240 jobs
// (1 to 5 attempts each), claimed in batches of 8 by a live worker process or
// by one that never heartbeats, each with a callback registered and parked,
// or waiting in sequence, or parked or registered only during the run. Every
// token has an offset in the run; a front moves through them, and at each
// token these sessions act at once, from sessions whose default isolation is
// READ COMMITTED, REPEATABLE READ or SERIALIZABLE (the last two run each
// call in a READ COMMITTED transaction of its own, and now and then first
// bare, which must be refused with AW040):
//   - 3 resolvers: complete, fail, retry or resume (at random) of tokens near the front;
//   - an operator: cancel_job of jobs near the front;
//   - the handler: parks attempts, registers the late ones, polls
//     take_callback_result for the attempts waiting in sequence and, once
//     resumed, completes the attempt or registers again (a new token);
//   - a re-claimer: promotes the retried jobs, claims them and the resumed
//     parked ones again, registers (a new token) and parks or waits;
//   - the maintenance leader: rescue_expired_callbacks with a now at the
//     front (tokens time out as it passes), rescue_stale_claims (the silent
//     process's attempts go stale as the front passes them), and rotate and
//     prune of the queue, claim, lease and cursor rings.
//
// Then everything is drained (rescues past every timeout and heartbeat,
// promotion, claims, completion). Checked: no session saw an unexpected
// error (a cancel_job is refused only naming a terminal state); at most one
// resolution of each token applied; no job ended twice; before the drain,
// each parked row and each registration of an open attempt is its job's
// newest token and none of its resolutions applied, and each job shows at
// most once in awa.jobs, in the state of what ended it when ended; after the
// drain every job ended exactly once, as awa.jobs shows, with no
// registration or parked row left.
func TestCallbackRandomizedRunResolvesEachTokenOnceAndLosesNoJob(t *testing.T) {
	const (
		queue = "cb_random"
		n     = 240
		step  = 40 * time.Millisecond // between two setup tokens' offsets: the front passes 240 in 9.6 s
	)
	live := "00000000-0000-4000-8000-0000000000b1"
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 8))
	ctx, pool := newDB(t, 3*time.Minute)
	setup := connect(t, ctx, pool)
	ledger := newCBLedger()

	// Setup: jobs, claims (one live batch, one silent), registrations, parks.
	base := time.Now()
	if _, err := setup.Exec(ctx, `SELECT awa.heartbeat_instance($1, $2)`, live, base); err != nil {
		t.Fatal(err)
	}
	attempts := make([]int32, n)
	for i := range attempts {
		attempts[i] = 1 + rng.Int32N(5)
	}
	ids, err := collectIDs(setup.Query(ctx, `
		SELECT j.id FROM awa.insert_jobs(array_fill('k'::text, ARRAY[cardinality($2::int[])]), NULL,
			ARRAY(SELECT jsonb_build_object('queue', $1::text, 'max_attempts', m)
			      FROM unnest($2::int[]) WITH ORDINALITY AS u (m, o) ORDER BY o)) AS j`, queue, attempts))
	if err != nil || len(ids) != n {
		t.Fatalf("insert: %d ids, %v", len(ids), err)
	}
	var (
		parkLater []*cbToken // parked by the handler during the run
		late      []claimed  // registered by the handler during the run
		lateOff   = map[int64]time.Duration{}
		idx       = 0
		reserved  = 4
	)
	for batch := 0; ; batch++ {
		off := time.Duration(idx) * step
		var cs []claimed
		if batch%2 == 0 {
			cs, err = claim(ctx, setup, queue, 8, live)
		} else { // a process that never heartbeats: stale once the front passes its claim time
			cs, err = collectClaims(setup.Query(ctx, `
				SELECT c.id, c.run_lease, c.claim_slot, c.receipt_id, c.priority, c.attempt
				FROM awa.claim_ready_runtime($1, 8, NULL, $2) AS c`, queue, base.Add(off-time.Hour)))
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) == 0 {
			break
		}
		var park []claimed
		for _, c := range cs {
			off := time.Duration(idx) * step
			idx++
			role := rng.IntN(20)
			if role < 2 {
				late = append(late, c)
				lateOff[c.ID] = off
				continue
			}
			// The first few parked jobs wait past the run (no session's window
			// reaches their offset, no rescue their timeout), so the checks
			// before and after the drain always have waiting jobs to check.
			if role < 12 && reserved > 0 {
				reserved--
				off = time.Duration(n)*step + 10*time.Second
			}
			o, token, err := registerCallback(ctx, setup, c, time.Hour+off, &base)
			if err != nil || o != "applied" {
				t.Fatalf("register of job %d: %q, %v", c.ID, o, err)
			}
			k := &cbToken{id: token, c: c, off: off, contested: rng.IntN(10) < 6}
			ledger.addToken(k)
			switch {
			case role < 12:
				park = append(park, c)
			case role < 15:
				parkLater = append(parkLater, k)
			default:
				ledger.handOff(k)
			}
		}
		if len(park) > 0 {
			fs, err := parkJobs(ctx, setup, park)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fs {
				if f.Outcome != "applied" {
					t.Fatalf("setup park: %v", f)
				}
			}
			ledger.finalized("park", fs)
		}
	}
	if idx != n {
		t.Fatalf("claimed %d jobs, want %d", idx, n)
	}
	runFor := time.Duration(n)*step + 1500*time.Millisecond

	// The run.
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	start := time.Now()
	front := func() time.Duration { return time.Since(start) }
	running := func() bool { return runCtx.Err() == nil && front() < runFor }
	var wg sync.WaitGroup
	levels := []pgx.TxIsoLevel{pgx.ReadCommitted, pgx.RepeatableRead, pgx.Serializable}
	session := func(level pgx.TxIsoLevel, run func(conn *pgx.Conn, rng *rand.Rand)) {
		r := rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			if _, err := conn.Exec(ctx, `SET default_transaction_isolation = '`+levelName(level)+`'`); err != nil {
				fail.set("set level: %v", err)
				return
			}
			run(conn, r)
		})
	}

	for r := 0; r < 3; r++ { // resolvers
		level := levels[r]
		session(level, func(conn *pgx.Conn, rng *rand.Rand) {
			for running() {
				k := ledger.near(rng, front(), 150*time.Millisecond, true)
				if k == nil {
					time.Sleep(5 * time.Millisecond)
					continue
				}
				action := resolutions[rng.IntN(len(resolutions))]
				var o callbackOutcome
				err := atReadCommitted(ctx, conn, level, "awa."+action+"_external", rng.IntN(5) == 0, func(q querier) (err error) {
					o, err = resolveCallback(ctx, q, action, k.id, fmt.Sprintf("resolver %s", levelName(level)))
					return err
				})
				if err != nil {
					fail.set("%s of job %d: %v", action, k.c.ID, err)
					return
				}
				if o.Outcome == "applied" && (o.JobID == nil || *o.JobID != k.c.ID) {
					fail.set("%s of job %d's token applied to job %v", action, k.c.ID, o.JobID)
					return
				}
				ledger.resolution(k, action, o)
				time.Sleep(time.Duration(2000+rng.IntN(6000)) * time.Microsecond)
			}
		})
	}

	session(pgx.RepeatableRead, func(conn *pgx.Conn, rng *rand.Rand) { // the operator
		for running() {
			time.Sleep(time.Duration(10+rng.IntN(40)) * time.Millisecond)
			k := ledger.near(rng, front(), 200*time.Millisecond, false)
			if k == nil {
				continue
			}
			var f finalized
			err := atReadCommitted(ctx, conn, pgx.RepeatableRead, "awa.cancel_job", rng.IntN(5) == 0, func(q querier) (err error) {
				f, err = cancelJob(ctx, q, k.c.ID)
				return err
			})
			switch sqlState(err) {
			case "":
				ledger.finalized("cancel", []finalized{f})
			case "AW021":
				state, _ := refusedState(err)
				ledger.mu.Lock()
				ledger.refused[k.c.ID] = append(ledger.refused[k.c.ID], state)
				ledger.counts["cancel refused "+state]++
				ledger.mu.Unlock()
				if !terminal(state) {
					fail.set("cancel_job of job %d refused naming state %q: %v", k.c.ID, state, err)
					return
				}
			case "AW020": // ended, and its history pruned since: checked below
				ledger.mu.Lock()
				ledger.refused[k.c.ID] = append(ledger.refused[k.c.ID], "not found")
				ledger.counts["cancel refused not found"]++
				ledger.mu.Unlock()
			default:
				fail.set("cancel_job of job %d: %v", k.c.ID, err)
				return
			}
		}
	})

	// register registers the attempt c (its token's offset off) and records it.
	register := func(conn querier, c claimed, off time.Duration) (*cbToken, error) {
		o, token, err := registerCallback(ctx, conn, c, time.Hour+off, &base)
		ledger.event(c.ID, "register", o, "")
		if err != nil || o != "applied" {
			return nil, err
		}
		k := &cbToken{id: token, c: c, off: off, contested: rand.IntN(10) < 6}
		ledger.addToken(k)
		return k, nil
	}
	park := func(conn querier, ks []*cbToken) error {
		cs := make([]claimed, len(ks))
		for i, k := range ks {
			cs[i] = k.c
		}
		fs, err := parkJobs(ctx, conn, cs)
		ledger.finalized("park", fs)
		return err
	}

	session(pgx.ReadCommitted, func(conn *pgx.Conn, rng *rand.Rand) { // the handler
		var waiting []*cbToken
		for running() {
			now := front()
			var due, later []*cbToken
			for _, k := range parkLater {
				if k.off-now < 100*time.Millisecond {
					due = append(due, k)
				} else {
					later = append(later, k)
				}
			}
			parkLater = later
			if len(due) > 0 {
				if err := park(conn, due); err != nil {
					fail.set("handler park: %v", err)
					return
				}
			}
			var stillLate []claimed
			for _, c := range late {
				if lateOff[c.ID]-now > 300*time.Millisecond {
					stillLate = append(stillLate, c)
					continue
				}
				k, err := register(conn, c, lateOff[c.ID])
				if err != nil {
					fail.set("late register of job %d: %v", c.ID, err)
					return
				}
				if k != nil && rng.IntN(2) == 0 {
					if err := park(conn, []*cbToken{k}); err != nil {
						fail.set("late park: %v", err)
						return
					}
				} else if k != nil {
					waiting = append(waiting, k)
				}
			}
			late = stillLate
			waiting = append(waiting, ledger.takeHandoffs()...)
			var next []*cbToken
			for _, k := range waiting {
				status, _, err := takeCallbackResult(ctx, conn, k.c, k.id)
				if err != nil {
					fail.set("take of job %d: %v", k.c.ID, err)
					return
				}
				ledger.event(k.c.ID, "take", status, "")
				switch status {
				case "waiting":
					next = append(next, k)
				case "resumed": // the handler goes on: it finishes, or waits for another callback
					if rng.IntN(2) == 0 {
						fs, err := complete(ctx, conn, []claimed{k.c})
						if err != nil {
							fail.set("complete after resume: %v", err)
							return
						}
						ledger.finalized("complete", fs)
						continue
					}
					k2, err := register(conn, k.c, front()+time.Duration(500+rng.IntN(1000))*time.Millisecond)
					if err != nil {
						fail.set("register again: %v", err)
						return
					}
					if k2 != nil {
						next = append(next, k2)
					}
				}
			}
			waiting = next
			time.Sleep(3 * time.Millisecond)
		}
	})

	session(pgx.ReadCommitted, func(conn *pgx.Conn, rng *rand.Rand) { // the re-claimer
		for running() {
			time.Sleep(30 * time.Millisecond)
			if _, err := conn.Exec(ctx, `SELECT count(*) FROM awa.promote_due_jobs(1000, $1)`, base.Add(48*time.Hour)); err != nil {
				fail.set("promote: %v", err)
				return
			}
			cs, err := claim(ctx, conn, queue, 8, live)
			if err != nil {
				fail.set("re-claim: %v", err)
				return
			}
			for _, c := range cs {
				ledger.event(c.ID, "claim", "applied", "running")
				k, err := register(conn, c, front()+time.Duration(300+rng.IntN(2500))*time.Millisecond)
				if err != nil {
					fail.set("register after re-claim: %v", err)
					return
				}
				if k != nil && rng.IntN(2) == 0 {
					err = park(conn, []*cbToken{k})
				} else if k != nil {
					ledger.handOff(k)
				}
				if err != nil {
					fail.set("park after re-claim: %v", err)
					return
				}
			}
		}
	})

	session(pgx.Serializable, func(conn *pgx.Conn, rng *rand.Rand) { // the maintenance leader
		lvl := pgx.Serializable
		for running() {
			now := front()
			var fs []finalized
			if err := atReadCommitted(ctx, conn, lvl, "awa.rescue_expired_callbacks", rng.IntN(5) == 0, func(q querier) (err error) {
				fs, err = rescueExpiredCallbacks(ctx, q, 20, base.Add(time.Hour+now))
				return err
			}); err != nil {
				fail.set("rescue_expired_callbacks: %v", err)
				return
			}
			ledger.finalized("rescue_callback", fs)
			if err := atReadCommitted(ctx, conn, lvl, "awa.rescue_stale_claims", rng.IntN(5) == 0, func(q querier) (err error) {
				fs, err = collectFinalized(q.Query(ctx, `
					SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text
					FROM awa.rescue_stale_claims(interval '1 hour', 1000, $1) AS f`, base.Add(now)))
				return err
			}); err != nil {
				fail.set("rescue_stale_claims: %v", err)
				return
			}
			ledger.finalized("rescue_stale", fs)
			for _, ring := range []string{"queue", "claim", "lease", "cursor"} {
				for _, action := range []string{"rotate", "prune"} {
					var o ringOutcome
					err := atReadCommitted(ctx, conn, lvl, "awa."+action+"_ring", false, func(q querier) error {
						sql := `SELECT o.ring, o.action, o.outcome, o.slot, o.generation, o.detail FROM awa.prune_ring($1) AS o`
						if action == "rotate" {
							sql = `SELECT o.ring, o.action, o.outcome, o.slot, o.generation, o.detail
								FROM awa.rotate_ring($1, now(), interval '0 seconds') AS o`
						}
						return q.QueryRow(ctx, sql, ring).Scan(&o.Ring, &o.Action, &o.Outcome, &o.Slot, &o.Generation, &o.Detail)
					})
					if err != nil {
						fail.set("%s %s: %v", action, ring, err)
						return
					}
					ledger.ring(ring, action+" "+o.Outcome)
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	t.Logf("run of %v: %d tokens; calls: %v", front().Round(time.Millisecond), len(ledger.tokens), ledger.counts)
	t.Logf("rings: %v", ledger.rings)

	// Exactly one resolution of a token at most; no job ended twice.
	for _, k := range ledger.tokens {
		if a := ledger.applied[k.id]; len(a) > 1 {
			t.Errorf("token of job %d (lease %d) resolved %d times: %v", k.c.ID, k.c.RunLease, len(a), a)
		}
	}
	for _, id := range ids {
		if te := ledger.terminalEvents(id); len(te) > 1 {
			t.Errorf("job %d ended %d times: %v", id, len(te), te)
		} else if len(ledger.refused[id]) > 0 && len(te) == 0 {
			t.Errorf("cancel_job of job %d was refused (%v), yet nothing ended it", id, ledger.refused[id])
		}
	}
	for _, what := range []string{"resolve complete applied", "resolve fail applied", "resolve retry applied",
		"resolve resume applied", "cancel applied", "rescue_callback applied", "rescue_stale applied", "park applied",
		"take resumed", "resolve complete stale"} {
		if ledger.counts[what] == 0 {
			t.Errorf("the run never saw %q: the races it checks did not happen", what)
		}
	}
	for _, ring := range []string{"queue", "claim", "lease", "cursor"} {
		if ledger.rings[ring]["rotate rotated"] == 0 {
			t.Errorf("the %s ring never rotated during the run", ring)
		}
	}

	// Each job in one plane, in the state of what ended it; each parked row and
	// each open wait is the job's newest token, unresolved.
	check := context.Background()
	rows, err := jobRows(check, setup, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		te := ledger.terminalEvents(id)
		switch got := rows[id]; {
		case len(got) > 1:
			t.Errorf("job %d shows %d times in awa.jobs: %v", id, len(got), got)
		case len(got) == 0 && len(te) == 0:
			t.Errorf("job %d is lost: not in awa.jobs and never ended (events %v)", id, ledger.events[id])
		case len(got) == 1 && terminal(got[0]) != (len(te) == 1):
			t.Errorf("job %d is %s in awa.jobs, ended by %v", id, got[0], te)
		case len(got) == 1 && len(te) == 1 && got[0] != te[0].state:
			t.Errorf("job %d is %s, yet %s applied with state %s", id, got[0], te[0].who, te[0].state)
		}
	}
	waitRows, err := setup.Query(check, `
		SELECT w.job_id, w.callback_id::text, 'parked' FROM awa.external_waits w
		UNION ALL
		SELECT x.job_id, x.callback_id::text, 'open' FROM awa.callbacks x
		WHERE x.resumed_at IS NULL AND awa._attempt_open(x.job_id, x.run_lease, x.claim_slot, x.receipt_id)`)
	if err != nil {
		t.Fatal(err)
	}
	waits, err := pgx.CollectRows(waitRows, pgx.RowToStructByPos[struct {
		Job   int64
		Token string
		Where string
	}])
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]string{}
	for _, w := range waits {
		if prev, twice := seen[w.Job]; twice {
			t.Errorf("job %d waits twice: %s and %s", w.Job, prev, w.Where)
		}
		seen[w.Job] = w.Where
		if ledger.latest[w.Job] != w.Token || len(ledger.applied[w.Token]) != 0 || len(ledger.terminalEvents(w.Job)) != 0 {
			t.Errorf("job %d waits (%s) on token %s: its newest is %s, resolutions applied %v, ended by %v",
				w.Job, w.Where, w.Token, ledger.latest[w.Job], ledger.applied[w.Token], ledger.terminalEvents(w.Job))
		}
	}
	if len(waits) == 0 {
		t.Errorf("no job waits for its callback at the end of the run: the drain checks nothing of them")
	}
	if t.Failed() {
		t.FailNow()
	}

	// Drain: every attempt and wait timed out, retried jobs promoted, claimed and completed.
	farRescues := func() {
		t.Helper()
		fs, err := collectFinalized(setup.Query(check, `
			SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text
			FROM awa.rescue_stale_claims(interval '1 second', 100000, now() + interval '2 days') AS f`))
		if err != nil {
			t.Fatal(err)
		}
		ledger.finalized("rescue_stale", fs)
		if fs, err = rescueExpiredCallbacks(check, setup, 100000, time.Now().Add(48*time.Hour)); err != nil {
			t.Fatal(err)
		}
		ledger.finalized("rescue_callback", fs)
	}
	farRescues()
	for round := 0; round < 100; round++ {
		if _, err := setup.Exec(check, `SELECT count(*) FROM awa.promote_due_jobs(100000, now() + interval '30 days')`); err != nil {
			t.Fatal(err)
		}
		cs, err := claim(check, setup, queue, 1000, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) > 0 {
			fs, err := complete(check, setup, cs)
			if err != nil {
				t.Fatal(err)
			}
			ledger.finalized("drain complete", fs)
			continue
		}
		if done, err := drained(check, setup, queue); err != nil {
			t.Fatal(err)
		} else if done {
			break
		}
	}
	farRescues()
	rows, err = jobRows(check, setup, ids)
	if err != nil {
		t.Fatal(err)
	}
	ended := map[string]int{}
	for _, id := range ids {
		te := ledger.terminalEvents(id)
		if len(te) != 1 {
			t.Errorf("after the drain job %d ended %d times: %v (events %v)", id, len(te), te, ledger.events[id])
			continue
		}
		ended[te[0].who+" "+te[0].state]++
		if got := rows[id]; len(got) > 1 || (len(got) == 1 && got[0] != te[0].state) {
			t.Errorf("after the drain job %d shows as %v, ended by %s with state %s", id, got, te[0].who, te[0].state)
		}
	}
	if c, w, err := callbackLeftovers(check, setup); err != nil || c != 0 || w != 0 {
		t.Errorf("after the drain: %d registrations and %d parked rows left (%v)", c, w, err)
	}
	keys := make([]string, 0, len(ended))
	for k := range ended {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", k, ended[k]))
	}
	t.Logf("how the %d jobs ended: %s", n, strings.Join(parts, ", "))
}
