#!/usr/bin/env python3
"""An awa worker in Python (psycopg 3), written from the SQL protocol alone
(docs/protocol.md): no Go, no awa library.

It shows every duty of a worker process:

* identity: one instance id (a UUID) per process, named in every claim and
  heartbeated (awa.heartbeat_instance), so a dead process's attempts are
  rescued and a live one's are not;
* claim (awa.claim_ready_runtime) in its own READ COMMITTED transaction;
* run each job, and finish it with its receipt: complete_jobs on success,
  retry_jobs (error appended, awa's default backoff) on failure;
* a side effect and the completion in ONE transaction: when complete_jobs
  reports the attempt 'stale' (it was rescued or cancelled meanwhile and may
  run again), the transaction rolls back, so the effect happens exactly once
  even though delivery is at least once;
* wake-ups: LISTEN on the queue's channel (awa.listen_queues) before the first
  claim; after a short claim, awa.queue_pending says whether to claim again
  at once (ready), soon (pending: an open producer may commit without a
  notification), or sleep until a notification or the poll interval;
* maintenance: CALL awa.run_maintenance(holder) about every second; only the
  process holding the leader lease does anything, so every worker may call it.

The demo handler understands two kinds: "record" inserts
(job_id, worker) into the table named by --effects, in the completing
transaction; "fail_once" fails its first attempt, then records like "record".

Usage: awa_worker.py --dsn DSN --queue Q [--queue Q2] [--effects TABLE]
                     [--batch N] [--stale-after SECONDS] [--exit-when-idle SECONDS]
"""

import argparse
import select
import signal
import sys
import time
import uuid

import psycopg
from psycopg import sql

POLL_INTERVAL = 1.0      # longest sleep without a notification
MAINTENANCE_EVERY = 1.0  # seconds between run_maintenance calls
LEASE_TTL = 5            # seconds the maintenance leader lease lasts unrenewed
HEARTBEAT_EVERY = 5.0    # well within the rescue staleness


class Worker:
    def __init__(self, args):
        self.args = args
        self.instance = str(uuid.uuid4())
        self.stopping = False
        # Three connections, all autocommit: claims and finishes (explicit
        # READ COMMITTED transactions), LISTEN (session state, never shared),
        # and maintenance (a procedure that commits by itself).
        self.conn = psycopg.connect(args.dsn, autocommit=True)
        self.listen_conn = psycopg.connect(args.dsn, autocommit=True)
        self.maint_conn = psycopg.connect(args.dsn, autocommit=True)
        self.woken = False
        self.listen_conn.add_notify_handler(self._on_notify)
        self.listen_conn.execute("SELECT awa.listen_queues(%s)", (args.queue,))
        self.last_heartbeat = 0.0
        self.last_maintenance = 0.0

    def _on_notify(self, _notify):
        self.woken = True

    def rc(self):
        """A READ COMMITTED transaction, whatever the database's default."""
        return self.conn.transaction()

    def begin_rc(self, cur):
        cur.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")

    def duties(self):
        now = time.monotonic()
        if now - self.last_heartbeat >= HEARTBEAT_EVERY:
            self.conn.execute("SELECT * FROM awa.heartbeat_instance(%s)", (self.instance,))
            self.last_heartbeat = now
        if now - self.last_maintenance >= MAINTENANCE_EVERY:
            # The lease outlives a few missed ticks, not more: if this
            # process dies, another worker leads within LEASE_TTL.
            self.maint_conn.execute(
                "CALL awa.run_maintenance(p_holder => %s, p_lease_ttl => %s::interval,"
                " p_stale_after => %s::interval)",
                (self.instance, f"{LEASE_TTL} seconds", f"{self.args.stale_after} seconds"))
            self.last_maintenance = now

    def claim(self, queue):
        with self.rc():
            cur = self.conn.cursor()
            self.begin_rc(cur)
            cur.execute(
                "SELECT id, run_lease, claim_slot, receipt_id, kind, args, attempt"
                " FROM awa.claim_ready_runtime(%s, %s, %s)",
                (queue, self.args.batch, self.instance))
            return cur.fetchall()

    def run(self, job):
        job_id, lease, slot, receipt, kind, args, attempt = job
        try:
            if kind == "fail_once" and attempt == 1:
                raise RuntimeError("first attempt fails on purpose")
            if kind not in ("record", "fail_once"):
                raise RuntimeError(f"unknown kind {kind!r}")
            with self.rc():
                cur = self.conn.cursor()
                self.begin_rc(cur)
                cur.execute(sql.SQL("INSERT INTO {} (job_id, worker) VALUES (%s, %s)")
                            .format(sql.Identifier(self.args.effects)), (job_id, self.instance))
                cur.execute(
                    "SELECT outcome FROM awa.complete_jobs(%s, %s, %s, %s)",
                    ([job_id], [lease], [slot], [receipt]))
                (outcome,) = cur.fetchone()
                if outcome != "applied":
                    # Rescued or cancelled meanwhile: undo the effect, the
                    # attempt that owns the job now will make it.
                    raise psycopg.Rollback()
        except psycopg.Error:
            raise
        except Exception as exc:  # the handler failed: record it, retry later
            with self.rc():
                cur = self.conn.cursor()
                self.begin_rc(cur)
                # retry_at NULL: awa's backoff (attempt^4 + 1 s, jittered).
                retry_at = "now" if self.args.retry_now else None
                cur.execute(
                    "SELECT outcome FROM awa.retry_jobs(%s, %s, %s, %s, %s::text[], %s::timestamptz[])",
                    ([job_id], [lease], [slot], [receipt], [f"{type(exc).__name__}: {exc}"], [retry_at]))

    def pending(self, queue):
        cur = self.conn.execute("SELECT pending, ready FROM awa.queue_pending(%s)", (queue,))
        return cur.fetchone()

    def idle_queue(self, queue):
        """No job of the queue is left to run (for --exit-when-idle)."""
        cur = self.conn.execute(
            "SELECT coalesce(sum(available + running + scheduled + retryable), 0) FROM awa.queue_counts(%s)",
            (queue,))
        return cur.fetchone()[0] == 0

    def wait(self, timeout):
        """Sleep until a notification or timeout; notifications that came
        while we claimed are already buffered and end the wait at once."""
        if self.woken:
            self.woken = False
            return
        ready, _, _ = select.select([self.listen_conn.fileno()], [], [], timeout)
        if ready:
            self.listen_conn.execute("SELECT 1")  # delivers them to _on_notify
        self.woken = False

    def loop(self):
        backoff = {q: 0.0 for q in self.args.queue}
        idle_since = time.monotonic()
        while not self.stopping:
            self.duties()
            worked = False
            for queue in self.args.queue:
                jobs = self.claim(queue)
                for job in jobs:
                    self.run(job)
                worked = worked or bool(jobs)
                if len(jobs) == self.args.batch:
                    backoff[queue] = 0.0
                    continue
                pending, ready = self.pending(queue)
                if ready and jobs:
                    backoff[queue] = 0.0
                elif pending:
                    backoff[queue] = min(max(2 * backoff[queue], 0.001), POLL_INTERVAL)
                else:
                    backoff[queue] = POLL_INTERVAL
            if worked:
                idle_since = time.monotonic()
                if min(backoff.values()) == 0.0:
                    continue
            elif (self.args.exit_when_idle is not None
                  and time.monotonic() - idle_since >= self.args.exit_when_idle
                  and all(self.idle_queue(q) for q in self.args.queue)):
                return
            self.wait(min(backoff.values()))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dsn", required=True)
    p.add_argument("--queue", action="append", required=True)
    p.add_argument("--effects", default="app_effects")
    p.add_argument("--batch", type=int, default=10)
    p.add_argument("--stale-after", type=float, default=90.0)
    p.add_argument("--exit-when-idle", type=float, default=None)
    p.add_argument("--retry-now", action="store_true",
                   help="retry failed jobs at once instead of after awa's backoff")
    args = p.parse_args()
    w = Worker(args)

    def stop(_sig, _frame):
        w.stopping = True  # finish the job in hand, then exit
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    w.loop()
    print(f"worker {w.instance} stopped", file=sys.stderr)


if __name__ == "__main__":
    main()
