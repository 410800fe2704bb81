package driver

import (
	"sync"
	"sync/atomic"
	"time"
)

// EventKind names what an Event reports.
type EventKind string

// Job outcome events: one per attempt whose finalizer applied (a stale result,
// whose attempt was already closed elsewhere, sends none). Event.Job is set.
const (
	// EventJobCompleted: the handler returned nil.
	EventJobCompleted EventKind = "job_completed"
	// EventJobRetried: the attempt failed (an error, a panic, a timeout, an
	// abandoned handler) and the job is retryable with attempts left.
	EventJobRetried EventKind = "job_retried"
	// EventJobFailed: the job failed for good (JobFail, attempts exhausted or
	// no worker for its kind); it is in the DLQ when its queue has the DLQ on
	// (the finalizer result does not tell the two apart).
	EventJobFailed EventKind = "job_failed"
	// EventJobSnoozed: JobSnooze put the job back without counting the attempt.
	EventJobSnoozed EventKind = "job_snoozed"
	// EventJobCancelled: JobCancel ended the job cancelled.
	EventJobCancelled EventKind = "job_cancelled"
	// EventJobParked: JobWaitForCallback parked the job (State
	// waiting_external), or sent it back to its queue (State available) as
	// its callback was resumed before the park.
	EventJobParked EventKind = "job_parked"
)

// The const lists here look alike (name, kind, string) on purpose: one value
// per event, each with its own doc line; there is nothing to factor.

// Maintenance events, sent by the client while it is the maintenance leader.
const (
	// EventRingMaintenance: one rotate or prune attempt; Event.Ring is set.
	EventRingMaintenance EventKind = "ring_maintenance"
	// EventJobsPromoted: Event.Count due jobs became available.
	EventJobsPromoted EventKind = "jobs_promoted"
	// EventJobsRescued: Event.Count attempts were closed and retried, by
	// Event.Service "rescue_stale" (their process stopped heartbeating),
	// "rescue_deadlines" (past their deadline) or "rescue_callbacks" (their
	// callback timed out).
	EventJobsRescued EventKind = "jobs_rescued"
	// EventDLQPurged: Event.Count DLQ jobs past DLQRetention were deleted.
	EventDLQPurged EventKind = "dlq_purged"
	// EventProcessesRemoved: Event.Count rows of silent processes were deleted.
	EventProcessesRemoved EventKind = "processes_removed"
	// EventLeadershipGained: this client became the maintenance leader.
	EventLeadershipGained EventKind = "leadership_gained"
	// EventLeadershipLost: this client stopped leading (lost or gave up its
	// lease, or stopped).
	EventLeadershipLost EventKind = "leadership_lost"
	// EventPeriodicFired: a periodic job fired; Event.Periodic is set (its
	// MissedFrom when the job covers fire times missed while no leader ran).
	EventPeriodicFired EventKind = "periodic_fired"
)

// EventNotificationsMissing: the client's LISTEN connection receives no
// notifications, so its queues wake by polling only (FetchPollInterval
// latency). Event.Notifications says why it thinks so. Sent at most once per
// silence: again only after a window in which notifications arrived.
const EventNotificationsMissing EventKind = "notifications_missing"

// Reasons of an EventNotificationsMissing.
const (
	// MissingBehindTransactionPooler: Start found the pool behind a
	// transaction-mode pooler and the listener takes its connection from the
	// pool (Config.ListenDSN is empty).
	MissingBehindTransactionPooler = "behind_transaction_pooler"
	// MissingSilentListener: over a whole Config.ListenWatchWindow no
	// notification arrived while claims woken by the poll found jobs, which a
	// notification should have announced.
	MissingSilentListener = "silent_listener"
)

// NotificationsMissing describes an EventNotificationsMissing.
type NotificationsMissing struct {
	// Reason is MissingBehindTransactionPooler or MissingSilentListener.
	Reason string
	// Window is the silent window (MissingSilentListener).
	Window time.Duration
	// PolledClaims is how many claims woken by the poll found jobs in it.
	PolledClaims int
}

// Event is one thing the client reports to subscribers (Client.Subscribe).
// Only the fields its Kind documents are set. Every subscription receives
// the same *Event: read it, never modify it.
type Event struct {
	Kind EventKind
	At   time.Time
	// Job is the job of a job outcome event.
	Job *JobEvent
	// Ring is the outcome of an EventRingMaintenance.
	Ring *RingOutcome
	// Count is how many jobs (or processes) a maintenance pass moved.
	Count int
	// Service names the maintenance service of EventJobsRescued.
	Service string
	// Notifications explains an EventNotificationsMissing.
	Notifications *NotificationsMissing
	// Periodic is the fire of an EventPeriodicFired.
	Periodic *PeriodicFire
}

// JobEvent describes the attempt of a job outcome event.
type JobEvent struct {
	ID       int64
	Kind     string
	Queue    string
	Attempt  int   // the attempt that ended, 1 for the first
	RunLease int64 // the attempt's run lease
	// State is the job's state after the finalizer.
	State JobState
	// Duration is how long the handler ran (zero when none ran: no worker
	// for the kind).
	Duration time.Duration
	// Error is the error or reason recorded for the attempt; empty for
	// completed and snoozed jobs.
	Error string
}

// SubscribeConfig configures one subscription.
type SubscribeConfig struct {
	// Kinds to receive; empty receives every kind.
	Kinds []EventKind
	// ChanSize is the channel's buffer: events that find it full are
	// dropped (and counted by Client.EventsDropped). Zero or negative takes
	// the default, 1000.
	ChanSize int
}

// Subscribe returns a channel that receives the client's events of the given
// kinds (every kind when none is given), and a function that ends the
// subscription and closes the channel. Sending never blocks the client: an
// event that finds the channel full is dropped and counted
// (EventsDropped), so a slow subscriber loses events, never stalls a
// worker or maintenance. Subscribe any time, before or after Start.
func (c *Client) Subscribe(kinds ...EventKind) (<-chan *Event, func()) {
	return c.SubscribeConfig(&SubscribeConfig{Kinds: kinds})
}

// SubscribeConfig is Subscribe with a configurable channel size.
func (c *Client) SubscribeConfig(cfg *SubscribeConfig) (<-chan *Event, func()) {
	return c.events.subscribe(cfg)
}

// EventsDropped returns how many events, over all subscriptions, were
// dropped because the subscriber's channel was full.
func (c *Client) EventsDropped() int64 { return c.events.dropped.Load() }

// eventBus fans events out to subscriptions. With no subscriber, emitting
// costs one atomic load.
type eventBus struct {
	active atomic.Int32 // subscriptions; read without the lock
	// jobs: subscriptions that take a job outcome event (listeningJobs).
	jobs    atomic.Int32
	dropped atomic.Int64
	mu      sync.RWMutex
	subs    map[*subscription]struct{}
}

type subscription struct {
	ch    chan *Event
	kinds map[EventKind]bool // nil: every kind
	jobs  bool               // it takes a job outcome event (eventBus.jobs)
}

func (b *eventBus) subscribe(cfg *SubscribeConfig) (<-chan *Event, func()) {
	s := &subscription{ch: make(chan *Event, 1000)}
	if cfg != nil {
		if cfg.ChanSize > 0 {
			s.ch = make(chan *Event, cfg.ChanSize)
		}
		if len(cfg.Kinds) > 0 {
			s.kinds = map[EventKind]bool{}
			for _, k := range cfg.Kinds {
				s.kinds[k] = true
			}
		}
	}
	s.jobs = s.kinds == nil
	for _, k := range eventKinds {
		s.jobs = s.jobs || s.kinds[k]
	}
	b.mu.Lock()
	if b.subs == nil {
		b.subs = map[*subscription]struct{}{}
	}
	b.subs[s] = struct{}{}
	b.active.Add(1)
	if s.jobs {
		b.jobs.Add(1)
	}
	b.mu.Unlock()
	var once sync.Once
	return s.ch, func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs, s)
			b.active.Add(-1)
			if s.jobs {
				b.jobs.Add(-1)
			}
			close(s.ch)
			b.mu.Unlock()
		})
	}
}

// listeningJobs reports whether a subscription takes job outcome events: the
// completer builds none otherwise (one per job).
func (b *eventBus) listeningJobs() bool { return b.jobs.Load() > 0 }

// listening reports whether anyone subscribes: callers skip building events
// otherwise.
func (b *eventBus) listening() bool { return b.active.Load() > 0 }

// emit sends e to every subscription that wants its kind, dropping it for
// those whose channel is full.
func (b *eventBus) emit(e *Event) {
	if !b.listening() {
		return
	}
	if e.At.IsZero() {
		e.At = time.Now()
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	for s := range b.subs {
		if s.kinds != nil && !s.kinds[e.Kind] {
			continue
		}
		select {
		case s.ch <- e:
		default:
			b.dropped.Add(1)
		}
	}
}
