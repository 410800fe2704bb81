-- Rows and WAL written by 1,000 claim+complete cycles of one short job each
-- (no progress), in one transaction: the per-job write cost of the hot path,
-- to compare two versions of the substrate (docs/storage.md, "Attempt
-- leases"). Run against a database with the substrate installed
-- (scripts/apply-sql.sh DSN), alternating with the version to compare:
--   psql -X -q -d "$DSN" -f bench/sql/short_job_writes.sql
-- Each run adds 1,000 completed jobs in queue "sjw".
\set ON_ERROR_STOP 1
SELECT count(*) FROM awa.insert_jobs(array_fill('k'::text, array[1000]), NULL, array_fill('{"queue":"sjw"}'::jsonb, array[1000])) \g /dev/null
CHECKPOINT;
BEGIN;
DO $$
DECLARE v_lsn pg_lsn; v_rows bigint; c record; v_t0 timestamptz;
BEGIN
  SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) INTO v_rows FROM pg_stat_xact_user_tables WHERE schemaname = 'awa';
  v_lsn := pg_current_wal_lsn();
  v_t0 := clock_timestamp();
  FOR i IN 1..1000 LOOP
    SELECT * INTO c FROM awa.claim_ready_runtime('sjw', 1, NULL, now());
    PERFORM awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id], now());
  END LOOP;
  RAISE WARNING 'short jobs: 1000 claim+complete cycles wrote % rows, % WAL bytes (% per cycle), % us/cycle',
    (SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_xact_user_tables WHERE schemaname = 'awa') - v_rows,
    pg_wal_lsn_diff(pg_current_wal_lsn(), v_lsn),
    round(pg_wal_lsn_diff(pg_current_wal_lsn(), v_lsn) / 1000.0),
    round(extract(epoch FROM clock_timestamp() - v_t0) * 1e6 / 1000, 1);
END $$;
COMMIT;
