package driver_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
)

// eventArgs: the tests' args types look alike on purpose: a kind is a
// type (driver.JobArgs), and each test names its own.
type eventArgs struct {
	Do string `json:"do"`
}

func (eventArgs) Kind() string { return "event_job" }

// TestEventsReportJobOutcomes: a subscriber receives one job outcome event
// per finalized attempt, with the job's id, kind, queue, attempt, new state,
// handler duration and error; a subscription to one kind receives only it.
func TestEventsReportJobOutcomes(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	ws := driver.NewWorkers()
	driver.AddWorker(ws, driver.WorkFunc(func(ctx context.Context, j *driver.Job[eventArgs]) error {
		time.Sleep(5 * time.Millisecond)
		switch j.Args.Do {
		case "retry":
			return errors.New("boom")
		case "fail":
			return driver.JobFail(errors.New("bad input"))
		case "snooze":
			return driver.JobSnooze(time.Hour)
		case "cancel":
			return driver.JobCancel(errors.New("not wanted"))
		}
		return nil
	}))
	client, all := startClientEvents(t, pool, &driver.Config{
		Queues:      map[string]driver.QueueConfig{"ev": {MaxWorkers: 4}},
		Workers:     ws,
		Maintenance: fastMaintenance(),
	})
	onlyCompleted, cancelCompleted := client.Subscribe(driver.EventJobCompleted)
	completed := collect(onlyCompleted)

	opts := &driver.InsertOpts{Queue: "ev"}
	jobs := map[string]driver.InsertManyParams{
		"ok": {Args: eventArgs{Do: "ok"}, Opts: opts}, "retry": {Args: eventArgs{Do: "retry"}, Opts: opts},
		"fail": {Args: eventArgs{Do: "fail"}, Opts: opts}, "snooze": {Args: eventArgs{Do: "snooze"}, Opts: opts},
		"cancel": {Args: eventArgs{Do: "cancel"}, Opts: opts},
		"last":   {Args: eventArgs{Do: "retry"}, Opts: &driver.InsertOpts{Queue: "ev", MaxAttempts: 1}},
	}
	ids := map[string]int64{}
	for name, p := range jobs {
		got, err := client.Insert(ctx, p.Args, p.Opts)
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = got.ID
	}
	unknown, err := client.Driver().Insert(ctx, pool, driver.InsertParams{Kind: "no_such_kind", Args: []byte(`{}`),
		Opts: driver.InsertOpts{Queue: "ev"}})
	if err != nil {
		t.Fatal(err)
	}
	ids["unknown"] = unknown.ID

	byID := func() map[int64]*driver.Event {
		out := map[int64]*driver.Event{}
		for _, k := range []driver.EventKind{driver.EventJobCompleted, driver.EventJobRetried, driver.EventJobFailed,
			driver.EventJobSnoozed, driver.EventJobCancelled} {
			for _, e := range all.of(k, nil) {
				out[e.Job.ID] = e
			}
		}
		return out
	}
	waitFor(t, 30*time.Second, "an outcome event for each job", func() (bool, string) {
		return len(byID()) == len(ids), all.kinds()
	})
	want := map[string]struct {
		kind  driver.EventKind
		state driver.JobState
		err   string
	}{
		"ok":      {driver.EventJobCompleted, driver.StateCompleted, ""},
		"retry":   {driver.EventJobRetried, driver.StateRetryable, "boom"},
		"fail":    {driver.EventJobFailed, driver.StateFailed, "bad input"},
		"snooze":  {driver.EventJobSnoozed, driver.StateScheduled, ""},
		"cancel":  {driver.EventJobCancelled, driver.StateCancelled, "not wanted"},
		"last":    {driver.EventJobFailed, driver.StateFailed, "boom"},
		"unknown": {driver.EventJobSnoozed, driver.StateScheduled, ""}, // handed back (UnknownKindDelay)
	}
	got := byID()
	for name, w := range want {
		e := got[ids[name]]
		j := e.Job
		wantKind := "event_job"
		if name == "unknown" {
			wantKind = "no_such_kind"
		}
		if e.Kind != w.kind || j.State != w.state || j.Kind != wantKind || j.Queue != "ev" || j.Attempt != 1 ||
			j.RunLease < 1 || !strings.Contains(j.Error, w.err) || (w.err == "") != (j.Error == "") || e.At.IsZero() {
			t.Errorf("%s: event %s %+v; want %s, state %s, kind %s, queue ev, attempt 1, error %q",
				name, e.Kind, *j, w.kind, w.state, wantKind, w.err)
		}
		if ranHandler := name != "unknown"; ranHandler != (j.Duration >= 5*time.Millisecond) {
			t.Errorf("%s: duration %s; want >= 5ms when the handler ran, 0 otherwise", name, j.Duration)
		}
	}
	if n := len(all.of(driver.EventJobCompleted, nil)); n != 1 {
		t.Errorf("%d completed events, want 1", n)
	}
	cancelCompleted()
	<-completed.closed
	if len(completed.events) != 1 || completed.events[0].Kind != driver.EventJobCompleted || completed.events[0].Job.ID != ids["ok"] {
		t.Errorf("the completed-only subscription got %s; want the one completed event", completed.kinds())
	}
}

// TestEventsReportMaintenance: the leader reports leadership, promotions,
// deadline rescues and every rotate and prune of every ring; stopping
// reports the leadership lost.
func TestEventsReportMaintenance(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	m := fastMaintenance()
	m.QueueRingInterval, m.ClaimRingInterval, m.LeaseRingInterval, m.CursorRingInterval =
		200*time.Millisecond, 200*time.Millisecond, 200*time.Millisecond, 200*time.Millisecond
	m.KeepSealedQueueSlots = -1
	client, events := startClientEvents(t, pool, &driver.Config{Maintenance: m})
	d := client.Driver()
	if _, err := d.Insert(ctx, pool, driver.InsertParams{Kind: "later", Args: []byte(`{}`),
		Opts: driver.InsertOpts{RunAt: time.Now().Add(300 * time.Millisecond)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Insert(ctx, pool, driver.InsertParams{Kind: "stuck", Args: []byte(`{}`), Opts: driver.InsertOpts{Queue: "m"}}); err != nil {
		t.Fatal(err)
	}
	// Claimed by no process, with a 100ms attempt deadline: the leader's
	// deadline rescue closes it.
	if claimed, err := d.Claim(ctx, pool, "m", 1, [16]byte{}, 100*time.Millisecond); err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %d jobs, %v; want 1", len(claimed), err)
	}

	rings := []string{"queue", "claim", "lease", "cursor"}
	waitFor(t, 30*time.Second, "maintenance events", func() (bool, string) {
		ok := len(events.of(driver.EventLeadershipGained, nil)) == 1 &&
			len(events.of(driver.EventJobsPromoted, func(e *driver.Event) bool { return e.Count >= 1 })) > 0 &&
			len(events.of(driver.EventJobsRescued, func(e *driver.Event) bool {
				return e.Service == "rescue_deadlines" && e.Count == 1
			})) == 1
		for _, r := range rings {
			for _, action := range []string{"rotate", "prune"} {
				ok = ok && len(events.of(driver.EventRingMaintenance, func(e *driver.Event) bool {
					return e.Ring.Ring == r && e.Ring.Action == action && e.Ring.Outcome != ""
				})) > 0
			}
		}
		return ok, events.kinds()
	})
	if n := len(events.of(driver.EventRingMaintenance, func(e *driver.Event) bool {
		return e.Ring.Outcome == "rotated" && e.Ring.Slot >= 0
	})); n == 0 {
		t.Errorf("no rotated ring event with its slot: %s", events.kinds())
	}
	if n := len(events.of(driver.EventLeadershipLost, nil)); n != 0 {
		t.Errorf("%d leadership_lost events while leading, want 0", n)
	}
	if err := client.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "leadership_lost after Stop", func() (bool, string) {
		return len(events.of(driver.EventLeadershipLost, nil)) == 1, events.kinds()
	})
}

// TestEventsBlockedSubscriberDoesNotStallJobs: a subscriber that never reads
// loses events (counted by EventsDropped), and every job still runs.
func TestEventsBlockedSubscriberDoesNotStallJobs(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	ws := driver.NewWorkers()
	driver.AddWorker(ws, driver.WorkFunc(func(ctx context.Context, j *driver.Job[eventArgs]) error { return nil }))
	client := startClient(t, pool, &driver.Config{
		Queues:      map[string]driver.QueueConfig{"ev": {MaxWorkers: 10}},
		Workers:     ws,
		Maintenance: fastMaintenance(),
	})
	blocked, cancel := client.SubscribeConfig(&driver.SubscribeConfig{ChanSize: 1, Kinds: []driver.EventKind{driver.EventJobCompleted}})
	const n = 300
	params := make([]driver.InsertManyParams, n)
	for i := range params {
		params[i] = driver.InsertManyParams{Args: eventArgs{Do: "ok"}, Opts: &driver.InsertOpts{Queue: "ev"}}
	}
	if _, err := client.InsertMany(ctx, params); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "every job completed", func() (bool, string) {
		counts, err := client.Driver().QueueCounts(ctx, pool, "ev")
		if err != nil || len(counts) != 1 {
			return false, fmt.Sprint(counts, err)
		}
		return counts[0].Completed == n, fmt.Sprintf("%+v", counts[0])
	})
	if err := client.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if got := client.EventsDropped(); got != n-1 {
		t.Errorf("EventsDropped = %d, want %d (%d completions, a buffer of 1)", got, n-1, n)
	}
	cancel()
	if e, ok := <-blocked; !ok || e.Kind != driver.EventJobCompleted {
		t.Errorf("first buffered event %v, %v; want a completed event", e, ok)
	}
	if _, ok := <-blocked; ok {
		t.Error("channel still open after cancel")
	}
}
