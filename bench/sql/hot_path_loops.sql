-- Hot-path cost in PL/pgSQL loops, no client round trips: us per insert_job
-- call and per claim-and-complete cycle of 10 jobs. Run it against a database
-- with the substrate installed (scripts/apply-sql.sh DSN), several times,
-- alternating with the version to compare (docs/storage.md, "Still open, and
-- the plan"):
--   psql -X -q -d "$DSN" -f bench/sql/hot_path_loops.sql
-- Each run adds 10,000 jobs (5,000 stay available in queue "ins").
\set ON_ERROR_STOP 1
DO $$
DECLARE t0 timestamptz; t1 timestamptz;
BEGIN
  t0 := clock_timestamp();
  FOR i IN 1..5000 LOOP PERFORM awa.insert_job('k', '{}', '{"queue":"ins"}'); END LOOP;
  t1 := clock_timestamp();
  RAISE WARNING 'insert_job: % us/call', round(extract(epoch FROM t1 - t0) * 1e6 / 5000, 1);
END $$;
SELECT count(*) FROM awa.insert_jobs(array_fill('k'::text, array[5000]), NULL, array_fill('{"queue":"cc"}'::jsonb, array[5000])) \g /dev/null
DO $$
DECLARE t0 timestamptz; t1 timestamptz; v_ids bigint[]; v_l bigint[]; v_s int[]; v_r bigint[];
BEGIN
  t0 := clock_timestamp();
  FOR i IN 1..500 LOOP
    SELECT array_agg(id), array_agg(run_lease), array_agg(claim_slot), array_agg(receipt_id)
      INTO v_ids, v_l, v_s, v_r FROM awa.claim_ready_runtime('cc', 10, NULL, now());
    PERFORM awa.complete_jobs(v_ids, v_l, v_s, v_r, now());
  END LOOP;
  t1 := clock_timestamp();
  RAISE WARNING 'claim+complete of 10: % us/cycle', round(extract(epoch FROM t1 - t0) * 1e6 / 500, 1);
END $$;
