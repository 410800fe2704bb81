package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgstats"
)

// demoReport is the demo's accounting and summary.
type demoReport struct {
	Expected   int64                   // jobs enqueued (and committed)
	Want       [numOutcomes]int64      // final outcomes the jobs' kinds ask for
	Got        [numOutcomes]int64      // final outcomes the handlers reported, one per job
	DB         driver.QueueCount       // awa.queue_counts over every queue after the stop
	Runs       int64                   // handler runs
	Retries    int64                   // runs that asked for a retry
	Snoozes    int64                   // runs that asked for a snooze
	Missing    int64                   // jobs without a final outcome
	Duplicate  int64                   // jobs with more than one final outcome
	Unexpected int64                   // jobs whose final outcome is not the one planned
	Strangers  int64                   // jobs a handler ran that the demo did not enqueue
	Problems   []string                // why the demo fails; empty when every job is accounted for
	EndedBy    string                  // endedDone, endedTimeout or endedInterrupted
	Enqueue    time.Duration           // time to enqueue
	Work       time.Duration           // from the workers' start until the last job finished
	Wall       time.Duration           // the whole demo
	Rings      map[string]ringActivity // by ring name
	Stats      []pgstats.TableStat     // activity during the demo (counters are deltas)
	plan       *demoPlan
}

func (r *demoReport) ok() bool { return len(r.Problems) == 0 }

// ringActivity is what the maintenance leader did to one ring.
type ringActivity struct {
	Rotations, Prunes int
	Skipped           []string // e.g. "3 prune skipped_blocked"
}

// Accounted is how many jobs ended exactly once, with their planned outcome.
func (r *demoReport) Accounted() int64 { return r.Expected - r.Missing - r.Duplicate - r.Unexpected }

func buildReport(plan *demoPlan, rec *outcomes, db driver.QueueCount, endedBy string, work, wall time.Duration,
	rings *ringCounter, stats []pgstats.TableStat) *demoReport {
	r := &demoReport{Expected: int64(len(plan.expect)), DB: db, EndedBy: endedBy, Enqueue: plan.took, Work: work, Wall: wall,
		Stats: stats, plan: plan, Rings: map[string]ringActivity{}}
	r.Runs, r.Retries, r.Snoozes = rec.runs.Load(), rec.count(outcomeRetried), rec.count(outcomeSnoozed)
	rec.mu.Lock()
	for id, want := range plan.expect {
		r.Want[want]++
		got := rec.final[id]
		switch {
		case len(got) == 0:
			r.Missing++
		case len(got) > 1:
			r.Duplicate++
		case got[0] != want:
			r.Unexpected++
		}
		for _, g := range got {
			r.Got[g]++
		}
	}
	for id := range rec.seen {
		if _, ok := plan.expect[id]; !ok {
			r.Strangers++
		}
	}
	rolledBackRan := rec.seen[plan.rolledBack]
	rec.mu.Unlock()
	for _, ring := range []string{"queue", "claim", "lease", "cursor"} {
		r.Rings[ring] = ringActivity{Rotations: rings.get(ring, "rotate", "rotated"), Prunes: rings.get(ring, "prune", "pruned"),
			Skipped: rings.skipped(ring)}
	}

	fail := func(format string, a ...any) { r.Problems = append(r.Problems, fmt.Sprintf(format, a...)) }
	if endedBy != endedDone {
		fail("the work phase ended by %s before every job finished", endedBy)
	}
	if r.Missing > 0 {
		fail("%d jobs never reached a final state in this process", r.Missing)
	}
	if r.Duplicate > 0 {
		fail("%d jobs reached a final state more than once", r.Duplicate)
	}
	if r.Unexpected > 0 {
		fail("%d jobs ended in another state than planned", r.Unexpected)
	}
	if r.Strangers > 0 {
		fail("handlers ran %d jobs the demo did not enqueue", r.Strangers)
	}
	if rolledBackRan {
		fail("job %d, enqueued in a rolled-back transaction, ran", plan.rolledBack)
	}
	if active := db.Available + db.Running + db.Scheduled + db.Retryable; active != 0 {
		fail("the database still shows %d jobs not final (available %d, running %d, scheduled %d, retryable %d)",
			active, db.Available, db.Running, db.Scheduled, db.Retryable)
	}
	if db.DLQ != r.Got[outcomeDLQ] {
		fail("the database holds %d DLQ jobs, the handlers sent %d there", db.DLQ, r.Got[outcomeDLQ])
	}
	return r
}

func (r *demoReport) print(w io.Writer) {
	fmt.Fprintln(w, "\n== Summary")
	fmt.Fprintf(w, "  %-12s %10s %13s %10s\n", "final state", "planned", "this process", "database")
	row := func(name string, oc outcome, db int64, note string) {
		fmt.Fprintf(w, "  %-12s %10s %13s %10s  %s\n", name, num(r.Want[oc]), num(r.Got[oc]), num(db), note)
	}
	row("completed", outcomeCompleted, r.DB.Completed, "database: completions still retained (ring prune reclaims terminal history)")
	row("failed", outcomeFailed, r.DB.Failed, "database: retained until their queue-ring slot is pruned")
	row("cancelled", outcomeCancelled, r.DB.Cancelled, "")
	row("in DLQ", outcomeDLQ, r.DB.DLQ, "database: the DLQ is kept until retried or purged")
	fmt.Fprintf(w, "  %-12s %10s %13s %10s  %s\n", "not final", "0", num(r.Missing), num(r.DB.Available+r.DB.Running+r.DB.Scheduled+r.DB.Retryable),
		"database: available + running + scheduled + retryable")
	fmt.Fprintf(w, "  accounted for: %s of %s jobs ended exactly once, as planned; job %d (rolled back) never ran\n",
		num(r.Accounted()), num(r.Expected), r.plan.rolledBack)
	fmt.Fprintf(w, "  handler runs: %s (%s retries, %s snoozes)\n", num(r.Runs), num(r.Retries), num(r.Snoozes))
	rate := 0.0
	if r.Work > 0 {
		rate = float64(r.Got[outcomeCompleted]+r.Got[outcomeFailed]+r.Got[outcomeCancelled]+r.Got[outcomeDLQ]) / r.Work.Seconds()
	}
	until := "until the last job finished"
	if r.EndedBy != endedDone {
		until = "until the " + r.EndedBy
	}
	fmt.Fprintf(w, "  time: %s wall in all; enqueue %s; work %s %s: %s jobs/s\n",
		r.Wall.Round(100*time.Millisecond), r.Enqueue.Round(100*time.Millisecond), r.Work.Round(100*time.Millisecond), until, num(int64(rate)))
	fmt.Fprintln(w, "  ring maintenance (rotate and prune, every second):")
	for _, ring := range []string{"queue", "claim", "lease", "cursor"} {
		a := r.Rings[ring]
		skipped := ""
		if len(a.Skipped) > 0 {
			skipped = "; skipped: " + strings.Join(a.Skipped, ", ")
		}
		fmt.Fprintf(w, "    %s ring: %s, %s (TRUNCATE of a sealed slot)%s\n", ring, plural(a.Rotations, "rotation"),
			plural(a.Prunes, "prune"), skipped)
	}
	r.printStats(w)

	if r.ok() {
		fmt.Fprintf(w, "\nOK: every one of the %s jobs is accounted for.\n", num(r.Expected))
		return
	}
	fmt.Fprintln(w, "\nFAIL: not every job is accounted for:")
	for _, p := range r.Problems {
		fmt.Fprintln(w, "  - "+p)
	}
}

// The ring parents (see docs/storage.md) and the other tables the summary lists.
var (
	ringParents = []struct{ ring, table string }{
		{"queue", "ready_entries"}, {"queue", "ready_tombstones"}, {"queue", "done_entries"},
		{"queue", "done_completions"}, {"claim", "claim_batches"},
		{"claim", "claim_closures"}, {"lease", "leases"}, {"cursor", "cursor_marks"},
	}
	otherTables = []string{"deferred_jobs", "dlq_entries", "queue_claim_heads", "queue_lanes", "queue_meta",
		"runtime_instances", "leader_leases", "ring_rotations", "ring_config"}
	planeOf = map[string]string{"deferred_jobs": "backlog", "dlq_entries": "DLQ", "queue_claim_heads": "control",
		"queue_lanes": "control", "queue_meta": "control", "runtime_instances": "control", "leader_leases": "control",
		"ring_rotations": "control", "ring_config": "control", "periodic_jobs": "control"}
	ringChild = regexp.MustCompile(`^(.+)_([0-9]+)$`)
)

func (r *demoReport) printStats(w io.Writer) {
	byParent := map[string]*pgstats.TableStat{}
	slots := map[string]int{}
	isParent := map[string]bool{}
	for _, p := range ringParents {
		isParent[p.table] = true
		byParent[p.table] = &pgstats.TableStat{Table: p.table}
	}
	other := map[string]pgstats.TableStat{}
	for _, s := range r.Stats {
		s.Table = strings.TrimPrefix(s.Table, "awa.")
		if m := ringChild.FindStringSubmatch(s.Table); m != nil && isParent[m[1]] {
			t := byParent[m[1]]
			t.Ins += s.Ins
			t.Upd += s.Upd
			t.HotUpd += s.HotUpd
			t.Del += s.Del
			t.Live += s.Live
			t.Dead += s.Dead
			t.SizeBytes += s.SizeBytes
			slots[m[1]]++
			continue
		}
		if !isParent[s.Table] {
			other[s.Table] = s
		}
	}
	// Any other table with activity is listed too.
	names := slices.Clone(otherTables)
	var extra []string
	for name, s := range other {
		if !slices.Contains(names, name) && (s.Ins+s.Upd+s.Del+s.Dead+s.Live) > 0 {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	names = append(names, extra...)

	fmt.Fprintln(w, "\n== Hot tables: pg_stat_user_tables, activity during the demo (dead, live and size: now)")
	const format = "  %-11s %-37s %9s %8s %8s %8s %7s %7s %8s\n"
	fmt.Fprintf(w, format, "plane", "table", "inserted", "updated", "HOT", "deleted", "dead", "live", "size")
	line := func(plane, name string, s pgstats.TableStat) {
		fmt.Fprintf(w, format, plane, name, num(s.Ins), num(s.Upd), num(s.HotUpd), num(s.Del),
			num(s.Dead), num(s.Live), bytesStr(s.SizeBytes))
	}
	var ring, ctl pgstats.TableStat
	for _, p := range ringParents {
		s := *byParent[p.table]
		line(p.ring+" ring", fmt.Sprintf("%s (%d slots)", p.table, slots[p.table]), s)
		ring.Ins += s.Ins
		ring.Upd += s.Upd
		ring.Del += s.Del
		ring.Dead += s.Dead
	}
	for _, name := range names {
		s := other[name]
		line(planeOf[name], name, s)
		ctl.Ins += s.Ins
		ctl.Upd += s.Upd
		ctl.Del += s.Del
		ctl.Dead += s.Dead
	}
	deferredDel := other["deferred_jobs"].Del
	prunes := r.Rings["queue"].Prunes + r.Rings["claim"].Prunes + r.Rings["lease"].Prunes + r.Rings["cursor"].Prunes

	var b strings.Builder
	if ring.Upd == 0 && ring.Del == 0 {
		reclaimed := plural(prunes, "prune") + " here"
		if prunes == 0 {
			reclaimed = "no slot came due in this short run"
		}
		fmt.Fprintf(&b, "The ring tables, where enqueue, claim and finalize write, took %s inserts and not one update or delete: "+
			"the hot path only appends, and whole sealed slots are reclaimed by TRUNCATE (%s), which leaves no dead tuples behind",
			num(ring.Ins), reclaimed)
		if ring.Dead == 1 {
			b.WriteString(" (the 1 dead tuple there is the row of a rolled-back insert, the demo's ROLLBACK, gone when its slot is truncated)")
		} else if ring.Dead > 1 {
			fmt.Fprintf(&b, " (the %d dead there are rows of rolled-back inserts, such as the demo's ROLLBACK, gone when their slot is truncated)",
				ring.Dead)
		}
		b.WriteString(". ")
	} else {
		fmt.Fprintf(&b, "The ring tables show %s updates and %s deletes although they are meant to be append-only: that is a bug. ",
			num(ring.Upd), num(ring.Del))
	}
	fmt.Fprintf(&b, "Elsewhere, the %s updates and %s deletes (%s dead tuples now, for autovacuum) are the churn of small tables, "+
		"which follows clock ticks rather than jobs: a lane's cursor floor when the cursor ring's prune raises it (claims only "+
		"append marks), one heartbeat row per process, the leader lease, the rotation ledger, a periodic job's row at each of its "+
		"fires; plus the deferred backlog, the one "+
		"plain job table, whose rows "+
		"(scheduled, retried and snoozed jobs only) are deleted when promoted (%s here).",
		num(ctl.Upd), num(ctl.Del), num(ctl.Dead), num(deferredDel))
	fmt.Fprintln(w)
	for _, l := range wrap(b.String(), 100) {
		fmt.Fprintln(w, "  "+l)
	}
}

// settledStats reads the table statistics of schema awa on a new connection
// once the figures of the closed pool's backends (flushed as they exit) have
// arrived.
func settledStats(ctx context.Context, dsn string) ([]pgstats.TableStat, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("connect for statistics: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	stats, err := pgstats.Settled(ctx, conn, pgstats.InSchema("awa"))
	if err != nil {
		return nil, fmt.Errorf("table statistics: %w", err)
	}
	return stats, nil
}

// plural renders "1 prune" or "3 prunes".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func bytesStr(n int64) string {
	switch {
	case n >= 10<<20:
		return strconv.FormatInt(n>>20, 10) + " MB"
	case n >= 10<<10:
		return strconv.FormatInt(n>>10, 10) + " kB"
	default:
		return strconv.FormatInt(n, 10) + " B"
	}
}

// wrap breaks s into lines of at most width characters at spaces.
func wrap(s string, width int) []string {
	var lines []string
	var cur strings.Builder
	for _, word := range strings.Fields(s) {
		if cur.Len() > 0 && cur.Len()+1+len(word) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(word)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}
