package driver

import (
	"log/slog"
	"testing"
	"time"
)

// The job outcome events of a finalizer call match each result to its own
// request whether the results come in the requests' order (what the
// finalizers do) or not, and a result of no request sends none.
func TestAppliedMatchesResultsToTheirRequestsInAnyOrder(t *testing.T) {
	var bus eventBus
	ch, unsubscribe := bus.subscribe(nil)
	defer unsubscribe()
	c := &completer{events: &bus, log: slog.New(slog.DiscardHandler)}
	rs := []finishReq{
		{action: actionComplete, r: Receipt{JobID: 1, RunLease: 1}, kind: "a", took: 1 * time.Second},
		{action: actionComplete, r: Receipt{JobID: 2, RunLease: 1}, kind: "b", took: 2 * time.Second},
		{action: actionComplete, r: Receipt{JobID: 3, RunLease: 2}, kind: "c", took: 3 * time.Second},
	}
	want := map[int64]string{1: "a", 2: "b", 3: "c"}
	for _, order := range [][]int64{{1, 2, 3}, {3, 1, 2}, {1, 3, 2}} {
		var results []Result
		for _, id := range order {
			lease := int64(1)
			if id == 3 {
				lease = 2
			}
			results = append(results, Result{JobID: id, RunLease: lease, Outcome: Applied, State: StateCompleted})
		}
		results = append(results, Result{JobID: 9, RunLease: 1, Outcome: Applied, State: StateCompleted})
		c.applied(actionComplete, rs, results)
		for range order {
			e := <-ch
			if e.Job == nil {
				t.Fatalf("order %v: event %+v without its job", order, e)
			}
			if e.Job.Kind != want[e.Job.ID] || e.Job.Duration != time.Duration(e.Job.ID)*time.Second {
				t.Fatalf("order %v: event %+v, want job %d's kind and duration", order, e.Job, e.Job.ID)
			}
		}
		select {
		case e := <-ch:
			t.Fatalf("order %v: an event for a result of no request: %+v", order, e.Job)
		default:
		}
	}
}

// The completer builds job outcome events only while a subscription takes
// one: one per job otherwise made and dropped.
func TestListeningJobsFollowsTheSubscriptionsKinds(t *testing.T) {
	var bus eventBus
	_, ring := bus.subscribe(&SubscribeConfig{Kinds: []EventKind{EventRingMaintenance}})
	if bus.listeningJobs() || !bus.listening() {
		t.Fatalf("a ring-maintenance subscription: listeningJobs %v, listening %v; want false, true", bus.listeningJobs(), bus.listening())
	}
	_, failed := bus.subscribe(&SubscribeConfig{Kinds: []EventKind{EventLeadershipLost, EventJobFailed}})
	_, all := bus.subscribe(nil)
	if !bus.listeningJobs() {
		t.Fatal("with a job_failed subscription and one of every kind, listeningJobs is false")
	}
	failed()
	if !bus.listeningJobs() {
		t.Fatal("with a subscription of every kind left, listeningJobs is false")
	}
	all()
	all() // a second unsubscribe changes nothing
	if bus.listeningJobs() {
		t.Fatal("with only the ring-maintenance subscription left, listeningJobs is true")
	}
	ring()
}
