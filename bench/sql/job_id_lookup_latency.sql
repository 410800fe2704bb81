-- Latency of the reads that find a ready row by its job id, on one queue
-- slot of 1,000,000 jobs (100,000 of them claimed and completed): get_job
-- and awa.job of an available and of a completed job, and three listings
-- (docs/benchmarks.md, Analysis, "WAL per job, record by record": what an
-- index on ready_entries.job_id buys). Each call 21 times (bench.reps) in one session,
-- p50 and p95 of the wall time inside the database. Run it on a fresh
-- database with the substrate installed, with autovacuum kept off the slot
-- (it is analyzed once) so that the index is read as the insert left it:
--   psql -X -q -d "$DSN" -v setup=1 -f bench/sql/job_id_lookup_latency.sql
-- then again with -v setup=0 after any change (VACUUM, another index).
-- PGOPTIONS='-c bench.reps=5' makes fewer calls (each is slow without an
-- index that walks job ids in order).
\set ON_ERROR_STOP 1
SELECT :setup = 1 AS setup \gset
\if :setup
ALTER TABLE awa.ready_entries_0 SET (autovacuum_enabled = false);
SELECT count(*) FROM generate_series(0, 99) c,
       LATERAL awa.insert_jobs(array_fill('bench'::text, ARRAY[10000]),
                               ARRAY(SELECT jsonb_build_object('n', c * 10000 + g) FROM generate_series(1, 10000) g)) \g /dev/null
DO $$
DECLARE
    v_ids bigint[]; v_leases bigint[]; v_slots int[]; v_receipts bigint[];
BEGIN
    FOR i IN 1 .. 100 LOOP
        SELECT array_agg(c.id), array_agg(c.run_lease), array_agg(c.claim_slot), array_agg(c.receipt_id)
        INTO v_ids, v_leases, v_slots, v_receipts
        FROM awa.claim_ready_runtime('default', 1000) AS c;
        PERFORM count(*) FROM awa.complete_jobs(v_ids, v_leases, v_slots, v_receipts);
    END LOOP;
END $$;
ANALYZE awa.ready_entries;
\endif
SELECT set_config('bench.done_id', (min(job_id) + 50000)::text, false),
       set_config('bench.avail_id', (min(job_id) + 600000)::text, false) FROM awa.ready_entries \g /dev/null
\ir latency_fn.sql
SELECT pg_temp.bench_latency(c.name, c.call) FROM (VALUES
    ('get_job, available', 'SELECT count(*) FROM awa.get_job(' || current_setting('bench.avail_id') || ')'),
    ('get_job, completed', 'SELECT count(*) FROM awa.get_job(' || current_setting('bench.done_id') || ')'),
    ('job, available', 'SELECT count(*) FROM awa.job(' || current_setting('bench.avail_id') || ')'),
    ('job, completed', 'SELECT count(*) FROM awa.job(' || current_setting('bench.done_id') || ')'),
    ('list_jobs first page', 'SELECT count(*) FROM awa.list_jobs()'),
    ('list_jobs completed', 'SELECT count(*) FROM awa.list_jobs(p_states => ''{completed}'')'),
    ('list_jobs after an id', 'SELECT count(*) FROM awa.list_jobs(p_after => ' || current_setting('bench.done_id') || ')')
) AS c (name, call) \g /dev/null
