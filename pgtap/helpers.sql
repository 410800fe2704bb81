-- Test-only helpers for the pgTAP suite (sql/tests). pgtap/setup.sh loads this
-- into the throwaway test database after pgTAP and the awa schema; it is never
-- part of a migration.
-- What the tests share lives here (and in sql/tests/*.psql for the isolation
-- tests' transactions). Tests of sibling functions still look alike line by
-- line on purpose: each calls the function it tests directly and states its
-- own expectations (docs/contributing.md, "Repeats we keep").
CREATE SCHEMA awa_test;

-- Row count of every leaf table in schema awa, as {"relname": count, ...}.
-- Partitioned and inheritance parents are skipped: their rows live in the
-- leaves, and counting both would count a row twice. Compare two snapshots to
-- assert that a call inserted or deleted nothing (updates do not show here; see
-- write_counts()).
CREATE FUNCTION awa_test.row_counts() RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  r      record;
  n      bigint;
  counts jsonb := '{}';
BEGIN
  FOR r IN
    SELECT c.oid::regclass AS rel, c.relname
    FROM pg_tables t
    JOIN pg_class c ON c.oid = format('%I.%I', t.schemaname, t.tablename)::regclass
    WHERE t.schemaname = 'awa'
      AND c.relkind = 'r'  -- pg_tables also lists partitioned parents ('p')
      AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhparent = c.oid)
    ORDER BY c.relname
  LOOP
    EXECUTE format('SELECT count(*) FROM ONLY %s', r.rel) INTO n;
    counts := counts || jsonb_build_object(r.relname, n);
  END LOOP;
  RETURN counts;
END
$$;

-- Tuples inserted + updated + deleted so far in the current transaction, per
-- table of schema awa (pg_stat_xact_user_tables, which includes the still
-- uncommitted work of this transaction). Unlike row_counts() it sees updates.
CREATE FUNCTION awa_test.write_counts() RETURNS jsonb
LANGUAGE sql AS $$
  SELECT coalesce(jsonb_object_agg(relname, n_tup_ins + n_tup_upd + n_tup_del), '{}')
  FROM pg_stat_xact_user_tables
  WHERE schemaname = 'awa'
$$;

-- Rows of awa.p_table updated so far in the current transaction
-- (pg_stat_xact_user_tables; partitions report their own rows).
CREATE FUNCTION awa_test.updates_of(p_table text) RETURNS bigint
LANGUAGE sql AS $$
  SELECT coalesce(sum(n_tup_upd), 0)::bigint FROM pg_stat_xact_user_tables
  WHERE schemaname = 'awa' AND relname = p_table
$$;

-- Entries the ready ring's partitions and their indexes returned so far in
-- the current transaction (pg_stat_get_xact_tuples_returned): what a probe
-- read, for tests that a call does not walk a backlog.
CREATE FUNCTION awa_test.ready_reads() RETURNS bigint
LANGUAGE sql AS $$
  SELECT coalesce(sum(pg_stat_get_xact_tuples_returned(c.oid)), 0)::bigint
  FROM pg_inherits i
  JOIN pg_class c ON c.oid = i.inhrelid OR c.oid IN (SELECT x.indexrelid FROM pg_index x WHERE x.indrelid = i.inhrelid)
  WHERE i.inhparent = 'awa.ready_entries'::regclass
$$;

-- Per-table difference of two awa_test.write_counts() or row_counts()
-- snapshots, keeping only the tables that changed: {"relname": after - before}.
CREATE FUNCTION awa_test.changed(p_before jsonb, p_after jsonb) RETURNS jsonb
LANGUAGE sql AS $$
  SELECT coalesce(jsonb_object_agg(a.key, a.value::bigint - coalesce((p_before ->> a.key)::bigint, 0)), '{}')
  FROM jsonb_each_text(p_after) a
  WHERE a.value::bigint <> coalesce((p_before ->> a.key)::bigint, 0)
$$;

-- pgTAP assertion: running p_sql inserts, updates and deletes no row of any awa
-- table. On failure the diagnostics name the tables written and how many tuples.
--   SELECT awa_test.writes_nothing($$SELECT awa.some_read_only_call()$$, 'reads only');
CREATE FUNCTION awa_test.writes_nothing(p_sql text, p_description text DEFAULT NULL) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  before  jsonb := awa_test.write_counts();
  after   jsonb;
  written jsonb;
BEGIN
  EXECUTE p_sql;
  after := awa_test.write_counts();
  SELECT coalesce(jsonb_object_agg(a.key, a.value::bigint - coalesce((before ->> a.key)::bigint, 0)), '{}')
    INTO written
  FROM jsonb_each_text(after) a
  WHERE a.value::bigint <> coalesce((before ->> a.key)::bigint, 0);
  RETURN is(written, '{}'::jsonb, coalesce(p_description, 'writes nothing: ' || p_sql));
END
$$;

-- Row type of the fixture's finalize loop (fx columns plus the action).
CREATE TYPE awa_test.fx_row AS (
    name text, queue text, id bigint, run_lease bigint, claim_slot int, receipt_id bigint,
    want awa.job_state, dlq boolean, action text);

-- Shared fixture of the read-surface tests (awa.jobs, awa.terminal_jobs,
-- awa.queue_counts): two queues with jobs in every state; qa has the DLQ on,
-- qb not. waiting_external twice: qa's job parked, qb's attempt registered
-- and waiting in sequence; qa_completed_callback was completed by its
-- callback (a completed snapshot, not compact history). It fills the temp table fx (name, queue, id, run_lease, claim_slot,
-- receipt_id, want, dlq): each job's expected state as seen through awa.jobs.
--   SELECT awa_test.state_fixture();
CREATE FUNCTION awa_test.state_fixture() RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  r awa_test.fx_row;
BEGIN
  PERFORM awa.configure_queue('qa', '{"dlq": true}');
  CREATE TEMP TABLE fx (
      name text PRIMARY KEY, queue text, id bigint, run_lease bigint, claim_slot int, receipt_id bigint,
      want awa.job_state, dlq boolean NOT NULL DEFAULT false);

  -- claimed jobs first, so each claim takes the job just inserted
  PERFORM awa_test.fx_claimed(c.name, c.queue, c.want::awa.job_state, c.dlq)
  FROM (VALUES ('qa_running', 'qa', 'running', false), ('qa_retryable', 'qa', 'retryable', false),
               ('qa_completed', 'qa', 'completed', false), ('qa_dlq', 'qa', 'failed', true),
               ('qb_running1', 'qb', 'running', false), ('qb_running2', 'qb', 'running', false),
               ('qb_cancelled_running', 'qb', 'cancelled', false), ('qb_failed', 'qb', 'failed', false),
               ('qb_completed1', 'qb', 'completed', false), ('qb_completed2', 'qb', 'completed', false),
               ('qa_waiting_parked', 'qa', 'waiting_external', false), ('qb_waiting', 'qb', 'waiting_external', false),
               ('qa_completed_callback', 'qa', 'completed', false))
       AS c (name, queue, want, dlq);
  PERFORM awa_test.fx_inserted(i.name, i.queue, i.want::awa.job_state, i.run_at)
  FROM (VALUES ('qa_available1', 'qa', 'available', NULL::timestamptz),
               ('qa_available2', 'qa', 'available', NULL),
               ('qa_cancelled_available', 'qa', 'cancelled', NULL),
               ('qa_scheduled', 'qa', 'scheduled', now() + interval '1 hour'),
               ('qb_available', 'qb', 'available', NULL),
               ('qb_scheduled', 'qb', 'scheduled', now() + interval '1 hour'),
               ('qb_cancelled_scheduled', 'qb', 'cancelled', now() + interval '1 hour'))
       AS i (name, queue, want, run_at);

  FOR r IN SELECT f.*, a.action FROM fx f
           JOIN (VALUES ('qa_retryable', 'retry'), ('qa_completed', 'complete'), ('qa_dlq', 'fail'),
                        ('qb_cancelled_running', 'cancel'), ('qb_failed', 'fail'), ('qb_completed1', 'complete'),
                        ('qb_completed2', 'complete'), ('qa_cancelled_available', 'cancel'),
                        ('qb_cancelled_scheduled', 'cancel'), ('qa_waiting_parked', 'park'), ('qb_waiting', 'register'),
                        ('qa_completed_callback', 'complete_external')) AS a (name, action) USING (name)
  LOOP
    CASE r.action
    WHEN 'complete' THEN
      PERFORM awa.complete_jobs(ARRAY[r.id], ARRAY[r.run_lease], ARRAY[r.claim_slot], ARRAY[r.receipt_id], now());
    WHEN 'retry' THEN
      PERFORM awa.retry_jobs(ARRAY[r.id], ARRAY[r.run_lease], ARRAY[r.claim_slot], ARRAY[r.receipt_id],
                             ARRAY['oops'], NULL, now());
    WHEN 'fail' THEN
      PERFORM awa.fail_jobs(ARRAY[r.id], ARRAY[r.run_lease], ARRAY[r.claim_slot], ARRAY[r.receipt_id],
                            ARRAY['fatal'], now());
    WHEN 'cancel' THEN
      PERFORM awa.cancel_job(r.id, 'stop', now());
    ELSE  -- register, park, complete_external
      PERFORM awa.register_callback(r.id, r.run_lease, r.claim_slot, r.receipt_id, interval '1 hour', now());
      IF r.action = 'park' THEN
        PERFORM awa.park_jobs(ARRAY[r.id], ARRAY[r.run_lease], ARRAY[r.claim_slot], ARRAY[r.receipt_id], now());
      ELSIF r.action = 'complete_external' THEN
        PERFORM awa.complete_external((SELECT x.callback_id FROM awa.callbacks x WHERE x.job_id = r.id), NULL, now());
      END IF;
    END CASE;
  END LOOP;
END
$$;


-- Fixture step: insert a job into queue and claim it at once.
CREATE FUNCTION awa_test.fx_claimed(p_name text, p_queue text, p_want awa.job_state, p_dlq boolean)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM awa.insert_job('mix.k', jsonb_build_object('name', p_name), jsonb_build_object('queue', p_queue));
  INSERT INTO fx (name, queue, id, run_lease, claim_slot, receipt_id, want, dlq)
  SELECT p_name, p_queue, c.id, c.run_lease, c.claim_slot, c.receipt_id, p_want, p_dlq
  FROM awa.claim_ready_runtime(p_queue, 1, NULL, now()) c;
END
$$;

-- Fixture step: insert a job (scheduled when run_at is given), not claimed.
CREATE FUNCTION awa_test.fx_inserted(p_name text, p_queue text, p_want awa.job_state, p_run_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO fx (name, queue, id, run_lease, want)
  SELECT p_name, p_queue, j.id, 0, p_want
  FROM awa.insert_job('mix.k', jsonb_build_object('name', p_name),
                      jsonb_strip_nulls(jsonb_build_object('queue', p_queue, 'run_at', p_run_at))) j;
END
$$;

-- Runs p_sql and swallows an awa error (SQLSTATE class AW), so
-- awa_test.writes_nothing can wrap a failing call and prove the function wrote
-- nothing before it raised (pg_stat_xact_user_tables still counts writes of a
-- rolled-back subtransaction). See awa_test.raises_writing_nothing.
CREATE FUNCTION awa_test.attempt(p_sql text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE p_sql;
EXCEPTION WHEN SQLSTATE 'AW000' THEN
  NULL;
END
$$;

-- Isolation tests (sql/tests/*/refuses_*_outside_read_committed*): a
-- transaction's level cannot change once it has run a query, so such a test
-- runs its call in a REPEATABLE READ and in a SERIALIZABLE transaction, keeps
-- awa_test.outcome()'s report in a psql variable (\gset) across their
-- rollbacks, and asserts on it in the usual final transaction.

-- Runs p_sql (a SELECT), catching any error, and reports {"level",
-- "sqlstate", "message", "result", "written"}: sqlstate NULL when it
-- succeeded; result is its first row as JSON; written holds the
-- tuples it inserted, updated or deleted per awa table, including those its
-- error rolled back (so '{}' means it wrote nothing before raising).
CREATE FUNCTION awa_test.outcome(p_sql text) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  before  jsonb := awa_test.write_counts();
  v_state text;
  v_msg   text;
  v_res   jsonb;
  written jsonb;
BEGIN
  BEGIN
    EXECUTE format('SELECT to_jsonb(r) FROM (%s) AS r LIMIT 1', p_sql) INTO v_res;
  EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS v_state = RETURNED_SQLSTATE, v_msg = MESSAGE_TEXT;
  END;
  SELECT coalesce(jsonb_object_agg(a.key, a.value::bigint - coalesce((before ->> a.key)::bigint, 0)), '{}')
    INTO written
  FROM jsonb_each_text(awa_test.write_counts()) a
  WHERE a.value::bigint <> coalesce((before ->> a.key)::bigint, 0);
  RETURN jsonb_build_object('level', current_setting('transaction_isolation'),
                            'sqlstate', v_state, 'message', v_msg,
                            'result', v_res, 'written', written);
END
$$;

-- Test setup only: switches the isolation guard (awa._require_read_committed)
-- off or back on inside the current transaction (DDL, undone by its
-- rollback), so a REPEATABLE READ test can build the state (a claim, a DLQ
-- entry) that the refused call would act on.
CREATE FUNCTION awa_test.isolation_guard(p_on boolean) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF p_on THEN
    EXECUTE current_setting('awa_test.guard_def');
  ELSE
    PERFORM set_config('awa_test.guard_def',
                       pg_get_functiondef('awa._require_read_committed(text)'::regprocedure), true);
    CREATE OR REPLACE FUNCTION awa._require_read_committed(p_function text) RETURNS void
    LANGUAGE plpgsql AS 'BEGIN END';
  END IF;
END
$$;

-- Test setup and call in one: in the current transaction (any level), enqueues
-- one job of queue 'iso', claims it with the isolation guard off into temp
-- table c (claimed_at 2030-01-01, no process), then returns
-- awa_test.outcome(p_sql): p_sql may read c for the attempt's receipt.
CREATE FUNCTION awa_test.outcome_after_claim(p_sql text) RETURNS jsonb
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM awa.insert_job('iso_job', '{}', '{"queue": "iso"}');
  PERFORM awa_test.isolation_guard(false);
  CREATE TEMP TABLE c AS SELECT * FROM awa.claim_ready_runtime('iso', 1, NULL, '2030-01-01 00:00:00+00');
  PERFORM awa_test.isolation_guard(true);
  RETURN awa_test.outcome(p_sql);
END
$$;

-- As awa_test.outcome_after_claim, for the DLQ: queue 'iso' gets the DLQ on,
-- its one job (temp table j) is claimed and failed into the DLQ with the
-- isolation guard off, then returns awa_test.outcome(p_sql).
CREATE FUNCTION awa_test.outcome_after_dlq(p_sql text) RETURNS jsonb
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM awa.configure_queue('iso', '{"dlq": true}');
  CREATE TEMP TABLE j AS SELECT * FROM awa.insert_job('iso_job', '{}', '{"queue": "iso"}');
  PERFORM awa_test.isolation_guard(false);
  CREATE TEMP TABLE c AS SELECT * FROM awa.claim_ready_runtime('iso', 1);
  PERFORM awa.fail_jobs(array(SELECT id FROM c), array(SELECT run_lease FROM c), array(SELECT claim_slot FROM c),
                        array(SELECT receipt_id FROM c), array['boom']);
  PERFORM awa_test.isolation_guard(true);
  RETURN awa_test.outcome(p_sql);
END
$$;

-- pgTAP: 6 assertions that p_function refused both reports (repeatable read,
-- serializable; from awa_test.outcome) with AW040, naming itself and the
-- level, and wrote nothing.
CREATE FUNCTION awa_test.refused_outside_read_committed(p_function text, p_rr jsonb, p_sr jsonb)
RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  r jsonb;
BEGIN
  FOREACH r IN ARRAY ARRAY[p_rr, p_sr] LOOP
    RETURN NEXT is(r ->> 'sqlstate', 'AW040', format('%s refuses %s with AW040', p_function, r ->> 'level'));
    RETURN NEXT ok(strpos(r ->> 'message', p_function) > 0 AND strpos(r ->> 'message', 'this one is ' || (r ->> 'level')) > 0,
                   format('the message names %s and %s: %s', p_function, r ->> 'level', r ->> 'message'));
    RETURN NEXT is(r -> 'written', '{}'::jsonb, format('%s at %s writes nothing', p_function, r ->> 'level'));
  END LOOP;
END
$$;

-- Turns a ring p_times: each time one job of queue p_queue is inserted,
-- claimed and completed (so the current slot of every ring holds rows and a
-- rotation is not skipped idle), then p_ring rotates and, with p_prune, the
-- slot just sealed is pruned (so the ring can wrap). Returns the ring's
-- current slot afterwards.
CREATE FUNCTION awa_test.turn(p_ring text, p_times int, p_queue text DEFAULT '_turn', p_prune boolean DEFAULT false)
RETURNS int
LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1 .. p_times LOOP
    PERFORM awa_test.completed_job(p_queue, 'turn');
    PERFORM awa.rotate_ring(p_ring, now());
    IF p_prune THEN
      PERFORM awa.prune_ring(p_ring);
    END IF;
  END LOOP;
  RETURN awa._current_slot(p_ring);
END
$$;

-- Runs one job request (kind, args, opts) through every insert path and
-- reports awa_test.outcome() of each, keyed by path, with the job's row in
-- awa.jobs (without its id) as "job" when the call succeeded:
--   insert_job, insert_jobs (a batch of one: the set-based fast path when the
--   request is plain), insert_jobs_validated (the same job in a batch that
--   awa._validate_job checks row by row), insert_staged_jobs (COPY's stage).
-- Every path's writes are rolled back by a savepoint, so the paths never see
-- each other's jobs. Needs the session's job stage (awa.open_job_stage()).
CREATE FUNCTION awa_test.insert_paths(p_kind text, p_args jsonb, p_opts jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_calls jsonb := jsonb_build_object(
    'insert_job', format('SELECT * FROM awa.insert_job(%L, %L, %L)', p_kind, p_args, p_opts),
    'insert_jobs', format('SELECT * FROM awa.insert_jobs(ARRAY[%L]::text[], ARRAY[%L]::jsonb[], ARRAY[%L]::jsonb[])',
                          p_kind, p_args, p_opts),
    'insert_jobs_validated', format('SELECT * FROM awa.insert_jobs(ARRAY[%L, ''k'']::text[], ARRAY[%L, ''{}'']::jsonb[], '
                                    'ARRAY[%L, ''{"run_at": null}'']::jsonb[])', p_kind, p_args, p_opts),
    'insert_staged_jobs', 'SELECT * FROM awa.insert_staged_jobs()');
  v_path  text;
  v_sql   text;
  v_out   jsonb;
  v_res   jsonb := '{}';
BEGIN
  FOR v_path, v_sql IN SELECT key, value #>> '{}' FROM jsonb_each(v_calls) LOOP
    BEGIN
      DELETE FROM pg_temp.awa_job_stage;
      INSERT INTO pg_temp.awa_job_stage (kind, args, opts) VALUES (p_kind, p_args, p_opts);
      v_out := awa_test.outcome(v_sql);
      v_out := v_out || jsonb_build_object('job', (SELECT to_jsonb(j) - 'id' FROM awa.jobs j
                                                   WHERE j.id = (v_out #>> '{result,id}')::bigint));
      v_res := v_res || jsonb_build_object(v_path, v_out - 'result' - 'level');
      RAISE SQLSTATE 'AWT01';
    EXCEPTION WHEN SQLSTATE 'AWT01' THEN
      NULL;  -- undo the path's writes
    END;
  END LOOP;
  RETURN v_res;
END
$$;

-- Fixture step: one job of p_queue (kind p_kind) inserted, claimed and
-- completed now, so the current slots of the queue and claim rings hold rows.
-- Returns the job's id.
CREATE FUNCTION awa_test.completed_job(p_queue text, p_kind text DEFAULT 'prune.k') RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v_c awa.claimed_job;
BEGIN
  PERFORM awa.insert_job(p_kind, '{}', jsonb_build_object('queue', p_queue));
  SELECT * INTO v_c FROM awa.claim_ready_runtime(p_queue, 1, NULL, now());
  PERFORM awa.complete_jobs(ARRAY[v_c.id], ARRAY[v_c.run_lease], ARRAY[v_c.claim_slot], ARRAY[v_c.receipt_id], now());
  RETURN v_c.id;
END
$$;

-- Fixture step: as awa_test.claim_one, then the queue gets the DLQ on and the
-- attempt is failed at p_at (error 'fatal'), so the job waits in the DLQ.
-- Returns the claim of that attempt:
--   CREATE TEMP TABLE c AS SELECT * FROM awa_test.dlq_claim('k', '{}', '{"queue": "q"}', now());
CREATE FUNCTION awa_test.dlq_claim(p_kind text, p_args jsonb, p_opts jsonb, p_at timestamptz)
RETURNS SETOF awa.claimed_job
LANGUAGE plpgsql AS $$
DECLARE
  v_c awa.claimed_job;
BEGIN
  PERFORM awa.configure_queue(p_opts ->> 'queue', '{"dlq": true}');
  SELECT * INTO v_c FROM awa_test.claim_one(p_kind, p_args, p_opts, p_at);
  PERFORM awa.fail_jobs(ARRAY[v_c.id], ARRAY[v_c.run_lease], ARRAY[v_c.claim_slot], ARRAY[v_c.receipt_id],
                        ARRAY['fatal'], p_at);
  RETURN NEXT v_c;
END
$$;

-- Fixture step: a job of p_queue in the DLQ, failed at p_failed_at (the queue
-- gets the DLQ on; the job is inserted, claimed and failed then). Returns its id.
CREATE FUNCTION awa_test.dlq_job(p_queue text, p_failed_at timestamptz) RETURNS bigint
LANGUAGE sql AS $$
  SELECT id FROM awa_test.dlq_claim('purge.k', '{}', jsonb_build_object('queue', p_queue), p_failed_at)
$$;

-- pgTAP, for tests with two sessions: opens the dblink connection
-- 'awa_other' to this database (dblink installed if missing), with
-- p_options (e.g. '-c lock_timeout=5s') as its session settings; one lives_ok.
CREATE FUNCTION awa_test.connect_other(p_options text DEFAULT NULL) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS dblink;
  RETURN lives_ok(
    format($q$select dblink_connect('awa_other', %L)$q$,
           format('host=%s port=%s dbname=%s user=%s',
                  coalesce(host(inet_server_addr()), split_part(current_setting('unix_socket_directories'), ',', 1)),
                  current_setting('port'), current_database(), current_user)
           || CASE WHEN p_options IS NOT NULL THEN format(' options=%L', p_options) ELSE '' END),
    'a second session connects (fixture)');
END
$$;

-- Fixture step: plants a ready row for job id p_job_id (ids normally come from
-- a sequence) in a fresh lane of p_queue (shard 0 of priority 2, created in
-- this transaction by a seed insert, so it does not outlive the rollback) and
-- claims it at p_now. Returns the claimed job (run_lease 1).
CREATE FUNCTION awa_test.claim_planted_job(p_queue text, p_job_id bigint, p_now timestamptz)
RETURNS SETOF awa.claimed_job
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM awa.insert_job('seed', '{}', jsonb_build_object('queue', p_queue));
  INSERT INTO awa.ready_entries (ready_slot, lane_id, lane_seq, job_id, run_lease, attempt, max_attempts, priority,
    queue, kind, args, tags, metadata, errors, created_at, run_at)
  SELECT awa._current_slot('queue'), l.lane_id, nextval(l.lane_seq) * 1024, p_job_id, 0, 0, 25, l.priority, l.queue,
         'planted', '{}', '{}', '{}', NULL, now(), now()
  FROM awa.queue_lanes l WHERE l.queue = p_queue AND l.priority = 2 AND l.shard = 0;
  RETURN QUERY SELECT * FROM awa.claim_ready_runtime(p_queue, 10, NULL, p_now) c WHERE c.kind = 'planted';
END
$$;

-- pgTAP, 2 assertions: p_sql raises p_sqlstate with message p_message (any
-- message when NULL), described p_raises; and, run again, it writes no row of
-- any awa table before raising (awa_test.writes_nothing over a call that
-- swallows only an AW error), described p_nothing (p_raises' subject followed
-- by "writes nothing" when NULL). The bad-input shape of the suite:
--   SELECT * FROM awa_test.raises_writing_nothing($$SELECT * FROM awa.insert_job('', '{}')$$,
--     'AW001', 'awa: kind must ...', 'an empty kind raises AW001', 'an empty kind writes nothing');
CREATE FUNCTION awa_test.raises_writing_nothing(p_sql text, p_sqlstate text, p_message text, p_raises text,
                                                p_nothing text DEFAULT NULL) RETURNS SETOF text
LANGUAGE plpgsql AS $$
BEGIN
  RETURN NEXT throws_ok(p_sql, p_sqlstate, p_message, p_raises);
  RETURN NEXT awa_test.writes_nothing(format('SELECT awa_test.attempt(%L)', p_sql),
                                      coalesce(p_nothing, regexp_replace(p_raises, ' raises? .*$', '') || ' writes nothing'));
END
$$;

-- pgTAP, for an unguarded call run at each level (reports from
-- awa_test.outcome; effects, what the test read after the call, as text): at
-- repeatable read, serializable and read committed it succeeds and
--   p_jobs NULL: has its effect (the effect reads true); 6 assertions;
--   p_jobs given (an insert path: the report counts the inserted rows as n,
--   the effect is the number of jobs the transaction sees): returns p_jobs
--   rows and the transaction sees p_jobs jobs; 9 assertions.
CREATE FUNCTION awa_test.works_at_every_level(p_rr jsonb, p_rr_effect text, p_sr jsonb, p_sr_effect text,
                                              p_rc jsonb, p_rc_effect text, p_jobs int DEFAULT NULL)
RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT * FROM (VALUES ('repeatable read', p_rr, p_rr_effect), ('serializable', p_sr, p_sr_effect),
                                 ('read committed', p_rc, p_rc_effect)) AS l (level, report, effect) LOOP
    RETURN NEXT is(r.report ->> 'sqlstate', NULL, 'succeeds at ' || r.level);
    IF p_jobs IS NULL THEN
      RETURN NEXT ok(r.effect::boolean, 'has its effect at ' || r.level);
    ELSE
      RETURN NEXT is((r.report #>> '{result,n}')::int, p_jobs, 'returns a row per job at ' || r.level);
      RETURN NEXT is(r.effect::int, p_jobs, 'the transaction sees its jobs at ' || r.level);
    END IF;
  END LOOP;
END
$$;

-- Fixture of the leader-lease tests: lease 'maintenance' held by
-- 00000000-0000-0000-0000-0000000000a1, acquired at 2030-01-01 12:00:00+00
-- for 30 seconds.
CREATE FUNCTION awa_test.held_lease() RETURNS void
LANGUAGE sql AS $$
  SELECT awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', '30 seconds',
                                  '2030-01-01 12:00:00+00');
$$;

-- pgTAP: awa.leader_leases holds the lease of awa_test.held_lease(),
-- unchanged, and no other.
CREATE FUNCTION awa_test.only_the_held_lease(p_description text) RETURNS text
LANGUAGE sql AS $$
  SELECT results_eq(
    $q$SELECT name, holder, acquired_at, expires_at FROM awa.leader_leases$q$,
    $q$VALUES ('maintenance'::text, '00000000-0000-0000-0000-0000000000a1'::uuid,
               '2030-01-01 12:00:00+00'::timestamptz, '2030-01-01 12:00:30+00'::timestamptz)$q$,
    p_description);
$$;

-- pgTAP, 3 assertions for a bounded claim: p_sql (a SELECT of one count)
-- returns p_n (described p_returns), and while it ran the ready ring's
-- partitions were read by no sequential scan (p_no_seq) and through their
-- indexes fetched at most p_max_fetch rows (p_fetched); counted in
-- pg_stat_xact_user_tables before and after.
CREATE FUNCTION awa_test.claim_reads_within(p_sql text, p_n bigint, p_max_fetch numeric, p_returns text,
                                            p_no_seq text, p_fetched text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  v_reads  text := $q$SELECT coalesce(sum(seq_tup_read), 0)::numeric, coalesce(sum(idx_tup_fetch), 0)::numeric
                      FROM pg_stat_xact_user_tables
                      WHERE schemaname = 'awa' AND relname LIKE 'ready\_entries\_%'$q$;
  v_seq0   numeric;
  v_fetch0 numeric;
  v_seq1   numeric;
  v_fetch1 numeric;
  v_n      bigint;
BEGIN
  EXECUTE v_reads INTO v_seq0, v_fetch0;
  EXECUTE p_sql INTO v_n;
  EXECUTE v_reads INTO v_seq1, v_fetch1;
  RETURN NEXT is(v_n, p_n, p_returns);
  RETURN NEXT cmp_ok(v_seq1 - v_seq0, '=', 0::numeric, p_no_seq);
  RETURN NEXT cmp_ok(v_fetch1 - v_fetch0, '<=', p_max_fetch, p_fetched);
END
$$;

-- pgTAP, 2 assertions (fixture): opens the second session
-- (awa_test.connect_other(p_options)) and, in a transaction it keeps open
-- there, locks awa.<p_table> in p_mode; describe says why.
CREATE FUNCTION awa_test.other_session_locks(p_table text, p_mode text, p_options text, p_description text)
RETURNS SETOF text
LANGUAGE plpgsql AS $$
BEGIN
  RETURN NEXT awa_test.connect_other(p_options);
  RETURN NEXT lives_ok(format('SELECT dblink_exec(%L, %L)', 'awa_other',
                              format('begin; lock table awa.%I in %s mode', p_table, p_mode)),
                       p_description);
END
$$;

-- Fixture step of the finalizer tests: inserts one job (p_kind, p_args,
-- p_opts, whose "queue" names its queue) and claims it from that queue at
-- p_at. Returns the claim:
--   CREATE TEMP TABLE claimed AS SELECT * FROM awa_test.claim_one('k', '{}', '{"queue": "q"}', '2030-01-01 12:00:00+00');
CREATE FUNCTION awa_test.claim_one(p_kind text, p_args jsonb, p_opts jsonb, p_at timestamptz)
RETURNS SETOF awa.claimed_job
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM awa.insert_job(p_kind, p_args, p_opts);
  RETURN QUERY SELECT * FROM awa.claim_ready_runtime(p_opts ->> 'queue', 1, NULL, p_at);
END
$$;

-- Login-less test roles for the privilege tests (sql/tests/awa_producer,
-- awa_worker, awa_admin, _apply_privileges): awa_test_producer, _worker and
-- _admin are members of the group role of the same suffix, as an
-- application's login role would be; awa_test_nobody is a member of none
-- (what PUBLIC gets). A test switches with SET LOCAL ROLE and back with RESET
-- ROLE. Roles are cluster-wide: created once, reused by later test databases.
DO $$
DECLARE
  v_kind text;
BEGIN
  FOREACH v_kind IN ARRAY ARRAY['producer', 'worker', 'admin', 'nobody'] LOOP
    IF to_regrole('awa_test_' || v_kind) IS NULL THEN
      EXECUTE format('CREATE ROLE %I NOLOGIN', 'awa_test_' || v_kind);
    END IF;
    IF v_kind <> 'nobody' AND NOT pg_has_role('awa_test_' || v_kind, 'awa_' || v_kind, 'MEMBER') THEN
      EXECUTE format('GRANT %I TO %I', 'awa_' || v_kind, 'awa_test_' || v_kind);
    END IF;
  END LOOP;
END
$$;

-- pgTAP: one assertion per statement of p_sql, that p_role (one of the test
-- roles above) running it is refused with 42501 (insufficient_privilege).
-- Each statement runs under SET LOCAL ROLE p_role; the role is reset after it.
CREATE FUNCTION awa_test.refused(p_role text, p_sql text[]) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  v_sql text;
BEGIN
  FOREACH v_sql IN ARRAY p_sql LOOP
    EXECUTE format('SET LOCAL ROLE %I', p_role);
    RETURN NEXT throws_ok(v_sql, '42501', NULL, format('%s is refused: %s', p_role, v_sql));
    RESET ROLE;
  END LOOP;
END
$$;

-- The routines of schema awa that p_role may execute, by name (catalog view
-- of the grants; PUBLIC's and membership's included).
CREATE FUNCTION awa_test.executable_by(p_role text) RETURNS SETOF text
LANGUAGE sql AS $$
  SELECT p.proname::text FROM pg_proc p
  WHERE p.pronamespace = 'awa'::regnamespace AND has_function_privilege(p_role, p.oid, 'EXECUTE')
  ORDER BY 1
$$;

-- The tables, views and sequences of schema awa on which p_role holds any
-- right, as 'name:privilege' (catalog view of the grants).
CREATE FUNCTION awa_test.relation_rights_of(p_role text) RETURNS SETOF text
LANGUAGE sql AS $$
  SELECT c.relname || ':' || r.p FROM pg_class c
  CROSS JOIN LATERAL unnest(CASE WHEN c.relkind = 'S' THEN ARRAY['USAGE', 'SELECT', 'UPDATE']
                                 ELSE ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER']
                            END) AS r (p)
  WHERE c.relnamespace = 'awa'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'S')
    AND CASE WHEN c.relkind = 'S' THEN has_sequence_privilege(p_role, c.oid, r.p)
             ELSE has_table_privilege(p_role, c.oid, r.p) END
  ORDER BY 1
$$;

-- pgTAP, 9 assertions: at each level (read committed, repeatable read,
-- serializable), in the second session (awa_test.connect_other), a
-- transaction runs p_sql (a read surface: CREATE TEMP TABLE seen AS p_sql)
-- and stays open; it then holds no lock on a table or index of schema awa,
-- the views it named aside (and SERIALIZABLE's SIRead predicate locks, which
-- conflict with no lock): the read surfaces release their ring locks before
-- they return, so prune can TRUNCATE. p_what names the surface in the
-- descriptions.
CREATE FUNCTION awa_test.keeps_no_lock_after(p_sql text, p_what text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  v_level text;
  v_pid   int;
BEGIN
  FOREACH v_level IN ARRAY ARRAY['read committed', 'repeatable read', 'serializable'] LOOP
    RETURN NEXT awa_test.connect_other('-c lock_timeout=5s -c statement_timeout=10s');
    RETURN NEXT lives_ok(format('SELECT dblink_exec(%L, %L)', 'awa_other',
                                format('begin isolation level %s; create temp table seen as %s', v_level, p_sql)),
                         format('a %s transaction reads %s and stays open (fixture)', v_level, p_what));
    SELECT t.pid INTO v_pid FROM dblink('awa_other', 'select pg_backend_pid()') AS t (pid int);
    RETURN NEXT is_empty(
      format($q$select l.relation::regclass::text || ' ' || l.mode from pg_locks l join pg_class c on c.oid = l.relation
                where l.pid = %s and c.relnamespace = 'awa'::regnamespace and c.relkind <> 'v'
                  and l.mode <> 'SIReadLock'$q$, v_pid),
      format('idle after reading %s at %s, it holds no lock on a table or index of schema awa', p_what, v_level));
    PERFORM dblink_exec('awa_other', 'rollback');
    PERFORM dblink_disconnect('awa_other');
  END LOOP;
END
$$;

-- Fixture step of the callback tests: as awa_test.claim_one (kind 'cb.k',
-- p_opts plus queue p_queue); with p_progress, the attempt writes that
-- checkpoint (awa.set_progress); then it registers a callback at p_at with
-- timeout p_timeout (awa.register_callback). Returns the claim and the token:
--   CREATE TEMP TABLE c AS SELECT * FROM awa_test.claim_registered('cb', '2030-01-01 12:00:00+00');
CREATE TYPE awa_test.callback_claim AS (
    id bigint, run_lease bigint, claim_slot int, receipt_id bigint, callback_id uuid, timeout_at timestamptz);
CREATE FUNCTION awa_test.claim_registered(p_queue text, p_at timestamptz, p_timeout interval DEFAULT '1 hour',
                                          p_opts jsonb DEFAULT '{}', p_progress jsonb DEFAULT NULL)
RETURNS SETOF awa_test.callback_claim
LANGUAGE plpgsql AS $$
DECLARE
  v_c awa.claimed_job;
BEGIN
  SELECT * INTO v_c FROM awa_test.claim_one('cb.k', '{}', p_opts || jsonb_build_object('queue', p_queue), p_at);
  IF p_progress IS NOT NULL THEN
    PERFORM awa.set_progress(v_c.id, v_c.run_lease, v_c.claim_slot, v_c.receipt_id, p_progress, p_at);
  END IF;
  RETURN QUERY SELECT v_c.id, v_c.run_lease, v_c.claim_slot, v_c.receipt_id, r.callback_id, r.timeout_at
  FROM awa.register_callback(v_c.id, v_c.run_lease, v_c.claim_slot, v_c.receipt_id, p_timeout, p_at) r;
END
$$;

-- Fixture step: as awa_test.claim_registered, then the attempt parks at p_at
-- (awa.park_jobs): the job waits in awa.external_waits. Same columns, and
-- claim_registered's parameters on purpose (alike in shape only).
CREATE FUNCTION awa_test.claim_parked(p_queue text, p_at timestamptz, p_timeout interval DEFAULT '1 hour',
                                      p_opts jsonb DEFAULT '{}', p_progress jsonb DEFAULT NULL)
RETURNS SETOF awa_test.callback_claim
LANGUAGE plpgsql AS $$
DECLARE
  v_c awa_test.callback_claim;
BEGIN
  SELECT * INTO v_c FROM awa_test.claim_registered(p_queue, p_at, p_timeout, p_opts, p_progress);
  PERFORM awa.park_jobs(ARRAY[v_c.id], ARRAY[v_c.run_lease], ARRAY[v_c.claim_slot], ARRAY[v_c.receipt_id], p_at);
  RETURN NEXT v_c;
END
$$;

-- Shared fixture of the listing tests (awa.list_jobs, awa.get_job): three jobs
-- of queue 'arch' (kind 'arch.k') finished an hour apart and archived by a
-- queue-ring prune, then moved out of the archive's DEFAULT partition into
-- their cohorts by awa.maintain_archive; their ids interleave with three
-- available jobs of queue 'live' (kind 'live.k'), inserted between them and
-- carried by that prune. arch_completed has tags a and b (and a twice),
-- arch_failed tag a, arch_cancelled none; live_2 has tag a. Fills temp table
-- ax (name, id, queue, want, finalized_at).
--   SELECT awa_test.archive_fixture();
CREATE FUNCTION awa_test.archive_fixture() RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_c awa.claimed_job;
  v_i int := 0;
BEGIN
  CREATE TEMP TABLE ax (name text PRIMARY KEY, id bigint, queue text, want awa.job_state, finalized_at timestamptz);
  INSERT INTO ax (name, id, queue, want)
  SELECT n.name, (awa.insert_job(n.kind, jsonb_build_object('name', n.name),
                                 jsonb_build_object('queue', n.queue, 'tags', n.tags))).id,
         n.queue, n.want::awa.job_state
  FROM (VALUES (1, 'arch_completed', 'arch', 'arch.k', '["a", "b", "a"]'::jsonb, 'completed'),
               (2, 'live_1', 'live', 'live.k', '[]', 'available'),
               (3, 'arch_failed', 'arch', 'arch.k', '["a"]', 'failed'),
               (4, 'live_2', 'live', 'live.k', '["a"]', 'available'),
               (5, 'arch_cancelled', 'arch', 'arch.k', '[]', 'cancelled'),
               (6, 'live_3', 'live', 'live.k', '[]', 'available')) AS n (k, name, queue, kind, tags, want)
  ORDER BY n.k;
  FOR v_c IN SELECT * FROM awa.claim_ready_runtime('arch', 3, NULL, now()) ORDER BY id LOOP
    v_i := v_i + 1;
    UPDATE ax SET finalized_at = now() - (4 - v_i) * interval '1 hour' WHERE id = v_c.id;
    CASE v_i
    WHEN 1 THEN
      PERFORM awa.complete_jobs(ARRAY[v_c.id], ARRAY[v_c.run_lease], ARRAY[v_c.claim_slot], ARRAY[v_c.receipt_id],
                                now() - interval '3 hours');
    WHEN 2 THEN
      PERFORM awa.fail_jobs(ARRAY[v_c.id], ARRAY[v_c.run_lease], ARRAY[v_c.claim_slot], ARRAY[v_c.receipt_id],
                            ARRAY['fatal'], now() - interval '2 hours');
    ELSE
      PERFORM awa.cancel_jobs(ARRAY[v_c.id], ARRAY[v_c.run_lease], ARRAY[v_c.claim_slot], ARRAY[v_c.receipt_id],
                              NULL, now() - interval '1 hour');
    END CASE;
  END LOOP;
  PERFORM awa.rotate_ring('queue', now());
  -- The first prune carries the live jobs, the next archives and truncates;
  -- one that another session's lock (autovacuum on a loaded machine) kept
  -- from its locks within their bound is tried again. Left in the ring, the
  -- jobs would show their fixture's finalization times (before their
  -- creation) only from the archive.
  FOR v_i IN 1 .. 20 LOOP
    EXIT WHEN (SELECT outcome FROM awa.prune_ring('queue')) = 'pruned';
    IF v_i = 20 THEN
      RAISE EXCEPTION 'archive_fixture: the queue ring''s sealed slot was never pruned';
    END IF;
  END LOOP;
  PERFORM awa.maintain_archive();
END
$$;

-- The plan of a listing's statement (awa._list_jobs_sql's text) as
-- awa.list_jobs runs it: EXPLAIN (ANALYZE, FORMAT JSON) under the function's
-- own settings (pg_proc.proconfig of awa.list_jobs, set for the transaction),
-- so that nodes a run-time pruning skipped show "Actual Loops" 0.
CREATE FUNCTION awa_test.listing_plan(p_sql text) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_plan jsonb;
BEGIN
  PERFORM set_config(split_part(c, '=', 1), substr(c, strpos(c, '=') + 1), true)
  FROM pg_proc p CROSS JOIN LATERAL unnest(p.proconfig) AS c
  WHERE p.oid = 'awa.list_jobs'::regproc AND split_part(c, '=', 1) <> 'search_path';
  EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || p_sql INTO v_plan;
  RETURN v_plan;
END
$$;

-- The nodes of a plan (awa_test.listing_plan) that a listing must not have:
-- a sort, but of a page that cannot come in job order (the archive's,
-- awa._archive_page, at most a page, unordered; the batch plane's walk,
-- batch_page, at most a page) or, inside that walk, of one batch row's items
-- (awa._batch_items, at most 1,024), or a sequential scan of anything but the
-- queue ring's completion batches (read whole, once, to hash the attempts
-- they hold; or, for an id, those of one slot). Each as "node type on
-- relation".
CREATE FUNCTION awa_test.unwanted_plan_nodes(p_plan jsonb) RETURNS SETOF text
LANGUAGE sql AS $$
  SELECT concat(n ->> 'Node Type', ' on ' || (n ->> 'Relation Name'))
  FROM jsonb_path_query(p_plan, 'strict $.** ? (exists (@."Node Type"))') AS n
  WHERE (n ->> 'Node Type' IN ('Sort', 'Incremental Sort')
         AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements(n -> 'Plans') AS c
                         WHERE c ->> 'Parent Relationship' = 'Outer'
                           AND ((c ->> 'Node Type' = 'Function Scan' AND c ->> 'Function Name' = '_archive_page')
                                OR (c ->> 'Node Type' = 'Subquery Scan' AND c ->> 'Alias' = 'batch_page')))
         AND NOT (coalesce((n ->> 'Actual Rows')::float8, 0) <= 1024
                  AND n IN (SELECT jsonb_path_query(p_plan, 'strict $.** ? (@."Alias" == "batch_page").Plans.**
                                                              ? (@."Node Type" == "Sort")'))))
     OR (n ->> 'Node Type' = 'Seq Scan' AND n ->> 'Relation Name' NOT LIKE 'done\_completions\_%')
$$;

-- Every archived job (awa._archived_jobs_now) and every archived job's tag
-- (awa.archived_tags expanded), one row each, as the tests read them.
CREATE VIEW awa_test.archived_jobs AS
  SELECT a.id AS job_id, a.* FROM awa._archived_jobs_now a;
CREATE VIEW awa_test.archived_job_tags AS
  SELECT t.expires_at, t.tag, t.state, u.job_id, t.chunk_id
  FROM awa.archived_tags t CROSS JOIN LATERAL unnest(t.job_ids) AS u (job_id);

-- The lower bound of a lane's cursor that this session's claim cache holds
-- for the lane's queue (awa._cursor_cache_key: 'queue|lane ids|cursors'), or
-- NULL when the cache holds none for it. The cache may hold other lanes of
-- the queue too (a lane whose pool sequence another lane advanced), in any
-- order.
CREATE FUNCTION awa_test.cached_cursor(p_queue text, p_lane_id int) RETURNS bigint
LANGUAGE sql AS $$
  SELECT (string_to_array(split_part(c, '|', 3), ',')::bigint[])[
           array_position(string_to_array(split_part(c, '|', 2), ',')::int[], p_lane_id)]
  FROM (SELECT current_setting(awa._cursor_cache_key(p_queue), true) AS c) AS s
  WHERE split_part(c, '|', 1) = p_queue
$$;

-- Completes every available job of a queue (claimed 1,024 at a time), then
-- rotates the queue ring and prunes until a prune truncates, which archives
-- them (with a retention on). Returns how many jobs it completed.
CREATE FUNCTION awa_test.complete_and_archive(p_queue text) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  v_n int := 0;
  v_k int;
BEGIN
  LOOP
    WITH c AS MATERIALIZED (SELECT * FROM awa.claim_ready_runtime(p_queue, 1024, NULL, now()))
    SELECT count(*) INTO v_k
    FROM awa.complete_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT run_lease FROM c), ARRAY(SELECT claim_slot FROM c),
                           ARRAY(SELECT receipt_id FROM c), now());
    EXIT WHEN v_k = 0;
    v_n := v_n + v_k;
  END LOOP;
  PERFORM awa.rotate_ring('queue', now());
  FOR i IN 1 .. 3 LOOP
    EXIT WHEN (SELECT outcome FROM awa.prune_ring('queue')) = 'pruned';
  END LOOP;
  RETURN v_n;
END
$$;

-- Two queues for the read surfaces' lane walk: busy_q with one job at
-- priority 2 and one at priority 3 (two lanes with rows), idle_q whose lanes
-- exist but hold no ready row (its one job's row deleted, as its slot's
-- TRUNCATE would leave it).
CREATE FUNCTION awa_test.idle_and_busy_queues() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM awa.insert_job('k', '{}', '{"queue":"idle_q"}');
  PERFORM awa.insert_job('k', '{}', '{"queue":"busy_q"}');
  PERFORM awa.insert_job('k', '{}', '{"queue":"busy_q","priority":3}');
  DELETE FROM awa.ready_entries WHERE queue = 'idle_q';
END;
$$;

-- awa.key_attempts read one row per attempt (it keeps one per key and claim
-- batch): each attempt's job, run_lease and receipt from its batch, its
-- weight, and whether it is still open (awa._attempt_open).
CREATE FUNCTION awa_test.key_attempts(p_queue text)
RETURNS TABLE (key text, job_id bigint, run_lease bigint, claim_slot int, receipt_id bigint, weight int, open boolean)
LANGUAGE sql AS $$
  SELECT a.key, b.job_ids[i.item], b.run_leases[i.item], a.claim_slot, awa._receipt_id(a.batch_id, i.item),
         coalesce(i.w, 1),
         awa._attempt_open(b.job_ids[i.item], b.run_leases[i.item], a.claim_slot, awa._receipt_id(a.batch_id, i.item))
  FROM awa.key_attempts a
  CROSS JOIN LATERAL unnest(a.items, a.weights) AS i (item, w)
  LEFT JOIN awa.claim_batches b ON b.batch_id = a.batch_id AND b.issued_slot = a.claim_slot
  WHERE a.queue = p_queue
$$;

-- Fixture cleanup for tests whose other session (awa_test.connect_other)
-- committed a queue's options: removes its bucket, options and meta rows
-- there (a lock timeout of 2 s: a row this session still locks fails the
-- cleanup rather than hanging the test).
CREATE FUNCTION awa_test.other_session_removes_queue(p_queue text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM dblink_exec('awa_other', format(
    $q$set lock_timeout = '2s';
       delete from awa.queue_rate_buckets where queue = %1$L;
       delete from awa.queue_options where queue = %1$L;
       delete from awa.queue_meta where queue = %1$L$q$, p_queue));
END
$$;

-- Fixture step: 10,001 available jobs of p_queue (kind p_kind), one more than
-- prune carries rather than holds (docs/storage.md, "Held slots"), inserted
-- into the current queue slot, which a rotation then seals. Returns that slot.
CREATE FUNCTION awa_test.large_backlog(p_queue text, p_kind text DEFAULT 'prune.k') RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  v_slot int := awa._current_slot('queue');
BEGIN
  PERFORM awa.insert_jobs(array_fill(p_kind, array[10000]), NULL,
                          array_fill(jsonb_build_object('queue', p_queue), array[10000]));
  PERFORM awa.insert_job(p_kind, '{}', jsonb_build_object('queue', p_queue));
  PERFORM awa.rotate_ring('queue', now());
  RETURN v_slot;
END
$$;

-- awa._close_claims as rows: its parallel arrays unnested, one row per
-- applied item, in item order, as the tests of its behaviours read them.
CREATE FUNCTION awa_test.close_claims(p_job_ids bigint[], p_run_leases bigint[], p_claim_slots int[],
                                      p_receipt_ids bigint[], p_outcome text, p_now timestamptz)
RETURNS SETOF awa._closed_claim
LANGUAGE sql AS $$
  SELECT u.ord, u.job_id, u.run_lease, u.claim_slot, u.receipt_id, u.ready_slot, u.lane_id, u.lane_seq, u.queue
  FROM awa._close_claims(p_job_ids, p_run_leases, p_claim_slots, p_receipt_ids, p_outcome, p_now) AS c
  CROSS JOIN LATERAL unnest(c.ords, c.job_ids, c.run_leases, c.claim_slots, c.receipt_ids, c.ready_slots, c.lane_ids,
                            c.lane_seqs, c.queues) WITH ORDINALITY
      AS u (ord, job_id, run_lease, claim_slot, receipt_id, ready_slot, lane_id, lane_seq, queue, n)
  ORDER BY u.n
$$;

-- Fixture: writes one batch-shaped ready row (awa.ready_batches) straight,
-- as the batch writer will (docs/batchready.md): the jobs of p_kinds (with
-- p_args and p_opts, NULL for {} / none), which must share queue and
-- priority and be due, go into the current queue slot as one row of the
-- (queue, priority)'s first shard lane, under its producer lock, at one
-- fresh block of the lane's pool sequence, with one block of awa.job_id_seq
-- (the sequence is moved past the block when it still counts by one).
-- Values every job shares are stored as scalars, the rest as item arrays.
-- Returns the jobs' ids in input order:
--   SELECT awa_test.batch_row(ARRAY['k', 'k'], ARRAY['{"n": 1}', '{"n": 2}']::jsonb[], NULL)
CREATE FUNCTION awa_test.batch_row(p_kinds text[], p_args jsonb[] DEFAULT NULL, p_opts jsonb[] DEFAULT NULL)
RETURNS bigint[]
LANGUAGE plpgsql AS $$
DECLARE
  v_n     int := cardinality(p_kinds);
  v_now   timestamptz := now();
  v_jobs  awa._job_body[];
  v_lane  int;
  v_seq   regclass;
  v_first bigint;
  v_block bigint;
BEGIN
  IF coalesce(v_n, 0) NOT BETWEEN 1 AND 1024 THEN
    RAISE EXCEPTION 'batch_row: 1 to 1024 jobs, got %', v_n;
  END IF;
  v_jobs := ARRAY(SELECT awa._build_job_body(0, u.kind, coalesce(u.args, '{}'), u.opts, v_now)
                  FROM unnest(p_kinds, coalesce(p_args, array_fill(NULL::jsonb, ARRAY[v_n])),
                              coalesce(p_opts, array_fill(NULL::jsonb, ARRAY[v_n])))
                       WITH ORDINALITY AS u (kind, args, opts, k)
                  ORDER BY u.k);
  IF (SELECT count(DISTINCT (j.queue, j.priority)) FROM unnest(v_jobs) AS j) <> 1
     OR EXISTS (SELECT 1 FROM unnest(v_jobs) AS j WHERE j.run_at > v_now) THEN
    RAISE EXCEPTION 'batch_row: the jobs must share queue and priority and be due';
  END IF;
  SELECT l.ids[1], l.seqs[1] INTO v_lane, v_seq FROM awa._resolve_lanes(v_jobs[1].queue, v_jobs[1].priority) AS l;
  PERFORM pg_advisory_xact_lock(awa._lock_key('lane_producer'), v_lane);
  v_block := nextval(v_seq) * 1024;
  v_first := nextval('awa.job_id_seq');
  IF (SELECT s.increment_by FROM pg_sequences s WHERE s.schemaname = 'awa' AND s.sequencename = 'job_id_seq') < 1024 THEN
    PERFORM setval('awa.job_id_seq', v_first + 1023);
  END IF;
  INSERT INTO awa.ready_batches (ready_slot, lane_id, first_seq, first_id, n, priority, queue, created_at,
                                 kind, max_attempts, item_kinds, item_max_attempts, item_args, item_tags,
                                 item_metadata, item_run_ats)
  SELECT awa._current_slot('queue'), v_lane, v_block, v_first, v_n, min(j.priority), min(j.queue), v_now,
         CASE WHEN count(DISTINCT j.kind) = 1 THEN min(j.kind) END,
         CASE WHEN count(DISTINCT j.max_attempts) = 1 THEN min(j.max_attempts) END,
         CASE WHEN count(DISTINCT j.kind) > 1 THEN array_agg(j.kind ORDER BY j.k) END,
         CASE WHEN count(DISTINCT j.max_attempts) > 1 THEN array_agg(j.max_attempts ORDER BY j.k) END,
         array_agg(j.args ORDER BY j.k),
         CASE WHEN bool_or(j.tags <> '{}') THEN jsonb_agg(to_jsonb(j.tags) ORDER BY j.k) END,
         CASE WHEN bool_or(j.metadata <> '{}') THEN array_agg(j.metadata ORDER BY j.k) END,
         CASE WHEN bool_or(j.run_at <> j.created_at) THEN array_agg(j.run_at ORDER BY j.k) END
  FROM unnest(v_jobs) WITH ORDINALITY
       AS j (job_id, run_lease, attempt, max_attempts, priority, queue, kind, args, tags, metadata, errors,
             created_at, run_at, k);
  RETURN ARRAY(SELECT v_first + g FROM generate_series(0, v_n - 1) AS g);
END
$$;

-- Fixture: claims batch jobs (awa_test.batch_row) at p_at as a claim would,
-- until the claim reads the batch plane (docs/batchready.md, step 3.2): the
-- jobs p_ids, which must be their lane's next ones from its cursor, in order,
-- and share a ready slot, get one claim batch in the current claim slot (run
-- lease 1) and a cursor mark at their lane's highest position. Returns them
-- as awa.claim_ready_runtime does.
--   SELECT * FROM awa_test.claim_batch_jobs((SELECT ids FROM ids), now())
CREATE FUNCTION awa_test.claim_batch_jobs(p_ids bigint[], p_at timestamptz)
RETURNS SETOF awa.claimed_job
LANGUAGE plpgsql AS $$
DECLARE
  v_rows  awa.ready_entries[];
  v_batch bigint := nextval('awa.claim_batch_id_seq');
  v_slot  int := awa._current_slot('claim');
BEGIN
  v_rows := ARRAY(SELECT r FROM unnest(p_ids) WITH ORDINALITY AS u (id, k)
                  CROSS JOIN LATERAL awa._ready_by_id(u.id) AS r ORDER BY u.k);
  IF cardinality(v_rows) <> cardinality(p_ids)
     OR (SELECT count(DISTINCT r.ready_slot) FROM unnest(v_rows) AS r) <> 1 THEN
    RAISE EXCEPTION 'claim_batch_jobs: every job must have one ready row, all in one slot';
  END IF;
  INSERT INTO awa.claim_batches (claim_slot, batch_id, issued_slot, ready_slot, queue, claimed_at, instance_id,
                                 deadline_at, job_ids, run_leases, lane_ids, lane_seqs)
  SELECT v_slot, v_batch, v_slot, min(r.ready_slot), min(r.queue), p_at, NULL, NULL,
         array_agg(r.job_id ORDER BY r.ordinality), array_agg(r.run_lease + 1 ORDER BY r.ordinality),
         array_agg(r.lane_id ORDER BY r.ordinality), array_agg(r.lane_seq ORDER BY r.ordinality)
  FROM unnest(v_rows) WITH ORDINALITY AS r;
  INSERT INTO awa.cursor_marks (cursor_slot, lane_id, claim_seq)
  SELECT awa._current_slot('cursor'), r.lane_id, max(r.lane_seq) FROM unnest(v_rows) AS r GROUP BY r.lane_id;
  RETURN QUERY
  SELECT r.job_id, r.run_lease + 1, v_slot, awa._receipt_id(v_batch, r.ordinality::int), r.kind, r.queue, r.priority, r.args,
         r.attempt + 1, r.max_attempts, r.tags, r.metadata, r.errors, r.created_at, r.run_at, p_at,
         NULL::timestamptz
  FROM unnest(v_rows) WITH ORDINALITY AS r
  ORDER BY r.ordinality;
END
$$;

-- The blocks of the TOAST table of queue slot p_slot's ready_batches child
-- this transaction has read so far (pg_stat_get_xact_blocks_fetched: hits and
-- reads): the difference across a statement is how many times it fetched a
-- batch row's out-of-line arrays, for the slice-once checks.
CREATE FUNCTION awa_test.batch_toast_fetches(p_slot int) RETURNS bigint
LANGUAGE sql AS $$
  SELECT pg_stat_get_xact_blocks_fetched(c.reltoastrelid)
  FROM pg_class c WHERE c.oid = format('awa.ready_batches_%s', p_slot)::regclass
$$;

-- Fixture for the slice-once checks: one batch row of 1,024 jobs of kind
-- p_queue || '.k' in queue p_queue, whose args ({"n": k} and three md5s,
-- which lz4 cannot shrink much) are stored out of line over several TOAST
-- blocks. Returns the ids, and fills temp table slot (ready_slot) and the
-- row fetch count of one plain read of its item_args into temp table fetched
-- (what 'one', n), which the tests compare their reads' counts with.
CREATE FUNCTION awa_test.toasted_batch_row(p_queue text) RETURNS bigint[]
LANGUAGE plpgsql AS $$
DECLARE
  v_ids    bigint[];
  v_slot   int;
  v_before bigint;
BEGIN
  v_ids := awa_test.batch_row(array_fill(p_queue || '.k', ARRAY[1024]),
                              ARRAY(SELECT jsonb_build_object('n', g, 'a', md5(g::text), 'b', md5((g + 1)::text),
                                                              'c', md5((g + 2)::text))
                                    FROM generate_series(1, 1024) AS g),
                              array_fill(jsonb_build_object('queue', p_queue), ARRAY[1024]));
  SELECT r.ready_slot INTO v_slot FROM awa.ready_batches r WHERE r.queue = p_queue;
  CREATE TEMP TABLE slot AS SELECT v_slot AS ready_slot;
  CREATE TEMP TABLE fetched (what text, n bigint);
  v_before := awa_test.batch_toast_fetches(v_slot);
  PERFORM (SELECT r.item_args[1] FROM awa.ready_batches r WHERE r.queue = p_queue);
  INSERT INTO fetched VALUES ('one', awa_test.batch_toast_fetches(v_slot) - v_before);
  RETURN v_ids;
END
$$;

-- Fixture: moves the claim cursor of lane p_lane_id to p_claim_seq with a
-- claim mark in the current cursor slot, as a claim that took the lane up to
-- there writes one (p_claim_seq must be above the lane's cursor).
CREATE FUNCTION awa_test.mark_cursor(p_lane_id int, p_claim_seq bigint) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO awa.cursor_marks (cursor_slot, lane_id, claim_seq)
  VALUES (awa._current_slot('cursor'), p_lane_id, p_claim_seq)
$$;

-- Fixture: a claim of jobs p_ids of batch rows (awa_test.batch_row), written
-- as awa.claim_ready_runtime writes one, for tests that need attempts drawn
-- from the batch plane: one claim batch in the current claim slot, drawn
-- from the rows' ready slot (all in one slot), run_lease 1, items in the
-- order given, and the lane's cursor moved to the highest position claimed
-- (awa_test.mark_cursor). Returns what a finalizer takes, with each job's
-- lane and position.
CREATE FUNCTION awa_test.claim_batch_jobs(p_ids bigint[])
RETURNS TABLE (id bigint, run_lease bigint, claim_slot int, receipt_id bigint, lane_id int, lane_seq bigint)
LANGUAGE plpgsql AS $$
DECLARE
  v_batch bigint := nextval('awa.claim_batch_id_seq');
  v_claim int := awa._current_slot('claim');
BEGIN
  CREATE TEMP TABLE IF NOT EXISTS awa_test_claimed (k bigint, id bigint, ready_slot int, queue text, lane_id int,
                                                    lane_seq bigint) ON COMMIT DROP;
  TRUNCATE awa_test_claimed;
  INSERT INTO awa_test_claimed
  SELECT u.k, u.id, b.ready_slot, b.queue, b.lane_id, b.first_seq + u.id - b.first_id
  FROM unnest(p_ids) WITH ORDINALITY AS u (id, k)
  JOIN LATERAL (SELECT r.* FROM awa.ready_batches r WHERE r.first_id <= u.id ORDER BY r.first_id DESC LIMIT 1) AS b
    ON u.id < b.first_id + b.n;
  IF (SELECT count(*) FROM awa_test_claimed) <> cardinality(p_ids)
     OR (SELECT count(DISTINCT c.ready_slot) FROM awa_test_claimed c) <> 1 THEN
    RAISE EXCEPTION 'claim_batch_jobs: every job must be in a batch row, all in one ready slot';
  END IF;
  INSERT INTO awa.claim_batches (claim_slot, batch_id, issued_slot, ready_slot, queue, claimed_at, instance_id,
                                 deadline_at, job_ids, run_leases, lane_ids, lane_seqs)
  SELECT v_claim, v_batch, v_claim, min(c.ready_slot), min(c.queue), now(), NULL, NULL, array_agg(c.id ORDER BY c.k),
         array_agg(1::bigint ORDER BY c.k), array_agg(c.lane_id ORDER BY c.k), array_agg(c.lane_seq ORDER BY c.k)
  FROM awa_test_claimed c;
  PERFORM awa_test.mark_cursor(c.lane_id, max(c.lane_seq)) FROM awa_test_claimed c GROUP BY c.lane_id;
  RETURN QUERY SELECT c.id, 1::bigint, v_claim, awa._receipt_id(v_batch, c.k), c.lane_id, c.lane_seq
               FROM awa_test_claimed c ORDER BY c.k;
END
$$;
