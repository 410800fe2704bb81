// Package awatest helps the tests of services that use awa: assert what a
// transaction enqueued (RequireInserted, RequireNotInserted, Jobs), and run
// one job through its worker synchronously (Work, WorkJob), with the same
// handler contract as the Client's runtime. Every helper runs real SQL on the
// handle it is given, a pgx.Tx (seeing that transaction's own uncommitted
// jobs), a connection or a pool, against a database holding schema awa; for
// an install in another schema, pass InSchema(t, schema, db) in place of db.
//
// A helper that fails calls t.Fatalf and returns; *testing.T and *testing.B
// satisfy TB.
package awatest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/driver/internal/dbsqlc"
	"github.com/awa-queue/awa/internal/sqlschema"
)

// InSchema returns db for the install in schema (driver.Config.Schema): the
// helpers of this package run their queries, written for schema awa, in that
// schema when given it. An invalid schema name fails the test.
func InSchema(t TB, schema string, db driver.DBTX) driver.DBTX {
	t.Helper()
	q, err := sqlschema.NewQueries(schema)
	if err != nil {
		t.Fatalf("awatest: %v", err)
		return db
	}
	return q.On(db)
}

// TB is the part of testing.TB the helpers use.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Job is a job of kind T as awa.jobs shows it.
type Job[T driver.JobArgs] struct {
	ID          int64
	Queue       string
	Priority    int
	State       driver.JobState
	Args        T
	RawArgs     json.RawMessage
	Attempt     int
	MaxAttempts int
	RunAt       time.Time
	CreatedAt   time.Time
	Tags        []string
	Metadata    json.RawMessage
	// DLQ: the job failed into its queue's dead-letter queue.
	DLQ bool
}

// Opts narrows which jobs of the kind match; zero fields match any job.
type Opts struct {
	// AnyArgs matches the kind's jobs whatever their args.
	AnyArgs  bool
	Queue    string
	Priority int
	// ScheduledAt matches the job's run_at to the microsecond (PostgreSQL's
	// precision).
	ScheduledAt time.Time
	MaxAttempts int
	State       driver.JobState
	// Metadata matches jobs whose metadata holds every top-level key of this
	// JSON object with an equal value.
	Metadata json.RawMessage
}

// Jobs returns every job of T's kind that db sees, oldest first.
func Jobs[T driver.JobArgs](ctx context.Context, t TB, db driver.DBTX) []Job[T] {
	t.Helper()
	jobs, err := jobsOfKind[T](ctx, db)
	if err != nil {
		t.Fatalf("awatest: %v", err)
		return nil
	}
	return jobs
}

// RequireInserted fails the test unless exactly one job of want's kind with
// want's args (compared as JSON values) and opts is visible to db, and
// returns that job. The failure lists every job of the kind that was found.
func RequireInserted[T driver.JobArgs](ctx context.Context, t TB, db driver.DBTX, want T, opts *Opts) Job[T] {
	t.Helper()
	all, matched, desc, err := match(ctx, db, want, opts)
	if err != nil {
		t.Fatalf("awatest: %v", err)
		return Job[T]{}
	}
	if len(matched) != 1 {
		t.Fatalf("awatest: want 1 job %s, found %d among %s", desc, len(matched), listing(all))
		return Job[T]{}
	}
	return matched[0]
}

// RequireNotInserted fails the test when a job of want's kind with want's
// args and opts is visible to db (with Opts.AnyArgs: any job of the kind).
func RequireNotInserted[T driver.JobArgs](ctx context.Context, t TB, db driver.DBTX, want T, opts *Opts) {
	t.Helper()
	all, matched, desc, err := match(ctx, db, want, opts)
	if err != nil {
		t.Fatalf("awatest: %v", err)
		return
	}
	if len(matched) != 0 {
		t.Fatalf("awatest: want no job %s, found %d among %s", desc, len(matched), listing(all))
	}
}

func match[T driver.JobArgs](ctx context.Context, db driver.DBTX, want T, opts *Opts) (all, matched []Job[T], desc string, err error) {
	var o Opts
	if opts != nil {
		o = *opts
	}
	wantArgs, err := json.Marshal(want)
	if err != nil {
		return nil, nil, "", fmt.Errorf("encode args of kind %q: %w", want.Kind(), err)
	}
	if all, err = jobsOfKind[T](ctx, db); err != nil {
		return nil, nil, "", err
	}
	for _, j := range all {
		ok, err := o.matches(j.Queue, j.Priority, j.MaxAttempts, j.State, j.RunAt, j.Metadata)
		if err != nil {
			return nil, nil, "", err
		}
		if ok && !o.AnyArgs {
			ok, err = sameJSON(wantArgs, j.RawArgs)
			if err != nil {
				return nil, nil, "", err
			}
		}
		if ok {
			matched = append(matched, j)
		}
	}
	return all, matched, o.describe(want.Kind(), wantArgs), nil
}

func (o Opts) matches(queue string, priority, maxAttempts int, state driver.JobState, runAt time.Time, metadata []byte) (bool, error) {
	if (o.Queue != "" && o.Queue != queue) || (o.Priority != 0 && o.Priority != priority) ||
		(o.MaxAttempts != 0 && o.MaxAttempts != maxAttempts) || (o.State != "" && o.State != state) {
		return false, nil
	}
	if d := runAt.Sub(o.ScheduledAt); !o.ScheduledAt.IsZero() && (d > time.Microsecond || d < -time.Microsecond) {
		return false, nil
	}
	if len(o.Metadata) == 0 {
		return true, nil
	}
	var want, have map[string]any
	if err := decode(o.Metadata, &want); err != nil {
		return false, fmt.Errorf("Opts.Metadata is not a JSON object: %w", err)
	}
	if err := decode(metadata, &have); err != nil {
		return false, err
	}
	for k, v := range want {
		if hv, ok := have[k]; !ok || !reflect.DeepEqual(v, hv) {
			return false, nil
		}
	}
	return true, nil
}

// describe renders what a job must be to match, for failure messages.
func (o Opts) describe(kind string, args []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "of kind %q", kind)
	if !o.AnyArgs {
		fmt.Fprintf(&b, " with args %s", args)
	}
	for _, f := range []struct {
		name string
		set  bool
		v    any
	}{
		{"queue", o.Queue != "", o.Queue}, {"priority", o.Priority != 0, o.Priority},
		{"run_at", !o.ScheduledAt.IsZero(), o.ScheduledAt.UTC().Format(time.RFC3339Nano)},
		{"max_attempts", o.MaxAttempts != 0, o.MaxAttempts}, {"state", o.State != "", o.State},
		{"metadata containing", len(o.Metadata) != 0, string(o.Metadata)},
	} {
		if f.set {
			fmt.Fprintf(&b, ", %s %v", f.name, f.v)
		}
	}
	return b.String()
}

// listing renders the jobs found, for failure messages.
func listing[T driver.JobArgs](all []Job[T]) string {
	var zero T
	if len(all) == 0 {
		return fmt.Sprintf("0 jobs of kind %q (none visible to this handle)", zero.Kind())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d job(s) of kind %q:", len(all), zero.Kind())
	const shown = 20
	for i, j := range all {
		if i == shown {
			fmt.Fprintf(&b, "\n  ... and %d more", len(all)-shown)
			break
		}
		fmt.Fprintf(&b, "\n  job %d: state %s, queue %s, priority %d, max_attempts %d, run_at %s, args %s, metadata %s",
			j.ID, j.State, j.Queue, j.Priority, j.MaxAttempts, j.RunAt.UTC().Format(time.RFC3339Nano), j.RawArgs, j.Metadata)
	}
	return b.String()
}

// jobsOfKind reads awa.jobs. Unless db is the caller's transaction, it
// retries a 40001: in a database that defaults to REPEATABLE READ, a read that
// waited behind a ring prune gets one (docs/storage.md, "Read surfaces").
func jobsOfKind[T driver.JobArgs](ctx context.Context, db driver.DBTX) ([]Job[T], error) {
	var zero T
	_, inTx := db.(pgx.Tx)
	var rows []dbsqlc.JobsOfKindRow
	var err error
	for attempt := 1; ; attempt++ {
		rows, err = dbsqlc.New().JobsOfKind(ctx, db, zero.Kind())
		var pgErr *pgconn.PgError
		if inTx || attempt == 10 || !errors.As(err, &pgErr) || pgErr.Code != "40001" {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("list jobs of kind %q: %w", zero.Kind(), err)
	}
	out := make([]Job[T], len(rows))
	for i, r := range rows {
		out[i] = Job[T]{ID: r.ID, Queue: r.Queue, Priority: int(r.Priority), State: driver.JobState(r.State),
			RawArgs: r.Args, Attempt: int(r.Attempt), MaxAttempts: int(r.MaxAttempts), RunAt: r.RunAt.Time,
			CreatedAt: r.CreatedAt.Time, Tags: r.Tags, Metadata: r.Metadata, DLQ: r.Dlq}
		if err := json.Unmarshal(r.Args, &out[i].Args); err != nil {
			return nil, fmt.Errorf("decode args of job %d (kind %q): %w", r.ID, zero.Kind(), err)
		}
	}
	return out, nil
}

// sameJSON reports whether a and b hold equal JSON values (object key order
// and spacing aside; numbers compared by their text).
func sameJSON(a, b []byte) (bool, error) {
	var va, vb any
	if err := decode(a, &va); err != nil {
		return false, err
	}
	if err := decode(b, &vb); err != nil {
		return false, err
	}
	return reflect.DeepEqual(va, vb), nil
}

func decode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}
