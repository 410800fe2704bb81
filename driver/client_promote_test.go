package driver_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/awa-queue/awa/driver"
)

type dueArgs struct {
	Name string `json:"name"`
	Fail bool   `json:"fail,omitempty"`
}

func (dueArgs) Kind() string { return "due" }

// Scheduled jobs and a retry start a few tens of milliseconds after their
// run_at although the promotion cap (PromoteInterval) is 10 s: the leader
// sleeps until the backlog's next due time, and a job inserted due before the
// one it sleeps for wakes it (awa:+promote). With a ticker of 10 s, every job
// here would wait seconds.
func TestScheduledJobsAndRetriesStartOnTimeWithoutATick(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	type start struct {
		attempt int
		late    time.Duration
	}
	var mu sync.Mutex
	starts := map[string][]start{}
	workers := workersFor(func(ctx context.Context, j *driver.Job[dueArgs]) error {
		now := time.Now()
		mu.Lock()
		starts[j.Args.Name] = append(starts[j.Args.Name], start{attempt: j.Attempt, late: now.Sub(j.RunAt)})
		mu.Unlock()
		if j.Args.Fail && j.Attempt == 1 {
			return errors.New("first attempt fails on purpose")
		}
		return nil
	})
	log, _ := testLogger(t, "promote")
	cfg := workConfig("due", 5, workers, log, nil)
	cfg.Maintenance.PromoteInterval = 10 * time.Second
	c := startClient(t, pool, cfg)
	waitFor(t, 10*time.Second, "leadership", func() (bool, string) { return c.IsLeader(), "not leading" })

	insert := func(name string, in time.Duration, fail bool) {
		t.Helper()
		if _, err := c.Insert(ctx, dueArgs{Name: name, Fail: fail},
			&driver.InsertOpts{Queue: "due", RunAt: time.Now().Add(in)}); err != nil {
			t.Fatal(err)
		}
	}
	// a: the backlog was empty (a wake-up); b: after a (no wake-up, the
	// leader sleeps until a, then until b); c: before a (a wake-up); r: fails
	// once, its retry due about 2 s later (awa._retry_backoff).
	insert("a", 800*time.Millisecond, false)
	insert("b", 1500*time.Millisecond, false)
	insert("c", 400*time.Millisecond, false)
	insert("r", 200*time.Millisecond, true)

	waitFor(t, 20*time.Second, "every job started, r twice", func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		return len(starts["a"]) == 1 && len(starts["b"]) == 1 && len(starts["c"]) == 1 && len(starts["r"]) == 2,
			fmt.Sprint(starts)
	})
	// A pass every 10 ms at most, a claim woken by the promotion's NOTIFY:
	// tens of milliseconds; 500 ms leaves room for a loaded machine and is
	// still far below any tick.
	const bound = 500 * time.Millisecond
	mu.Lock()
	defer mu.Unlock()
	for name, ss := range starts {
		for _, s := range ss {
			if s.late < -50*time.Millisecond || s.late > bound {
				t.Errorf("job %s attempt %d started %s after its run_at, want at most %s", name, s.attempt, s.late, bound)
			}
		}
	}
	if ss := starts["r"]; len(ss) != 2 || ss[1].attempt != 2 {
		t.Errorf("job r: starts %v, want its first attempt then its retry", ss)
	}
}

// awa:+promote is notified when a deferred job is due before every job
// already waiting (a scheduled insert, an operator retry), and only then: a
// later one, or a job due now, notifies nothing on it.
func TestWakePromoterNotifiesOnlyForAnEarlierDeferredJob(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	listen, err := pgx.Connect(ctx, pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { listen.Close(context.Background()) })
	if _, err := listen.Exec(ctx, `SELECT awa.listen_queues(ARRAY['w'])`); err != nil {
		t.Fatal(err)
	}
	d := driver.New()
	// expect waits for the next notification on the promotion channel
	// (others are skipped) when want, else makes sure none comes.
	expect := func(what string, want bool) {
		t.Helper()
		wait, cancel := context.WithTimeout(ctx, map[bool]time.Duration{true: 3 * time.Second, false: 400 * time.Millisecond}[want])
		defer cancel()
		for {
			n, err := listen.WaitForNotification(wait)
			if err != nil {
				if want {
					t.Errorf("%s: no notification on awa:+promote: %v", what, err)
				}
				return
			}
			if n.Channel == "awa:+promote" {
				if !want {
					t.Errorf("%s: notified awa:+promote", what)
				}
				return
			}
		}
	}
	insert := func(in time.Duration) int64 {
		t.Helper()
		p := driver.InsertParams{Kind: "w", Args: []byte(`{}`), Opts: driver.InsertOpts{Queue: "w"}}
		if in > 0 {
			p.Opts.RunAt = time.Now().Add(in)
		}
		j, err := d.Insert(ctx, pool, p)
		if err != nil {
			t.Fatal(err)
		}
		return j.ID
	}
	insert(10 * time.Minute)
	expect("the first scheduled job", true)
	insert(20 * time.Minute)
	expect("a job due after the waiting one", false)
	insert(0)
	expect("a job due now", false)
	insert(5 * time.Minute)
	expect("a job due before every waiting one", true)

	// An operator retry of a cancelled job, due before every waiting job.
	id := insert(0)
	if _, err := pool.Exec(ctx, `SELECT * FROM awa.cancel_job($1)`, id); err != nil {
		t.Fatal(err)
	}
	expect("a cancel", false)
	if _, err := pool.Exec(ctx, `SELECT * FROM awa.retry_job($1, now() + interval '1 minute')`, id); err != nil {
		t.Fatal(err)
	}
	expect("a retry due before every waiting job", true)
}
