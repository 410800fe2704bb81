-- WAL of claims with and without priority aging, of a pause, and of claims of a paused
-- queue (docs/benchmarks.md, "the cost of pause and aging"). Run on a database with awa
-- installed and nothing else running: psql -X -f bench/sql/pause_aging_claim_wal.sql
\set QUIET on
select awa.configure_queue('wq_plain', '{}'::jsonb) \g /dev/null
select awa.configure_queue('wq_aged', '{"aging_seconds": 1}'::jsonb) \g /dev/null
select awa.insert_jobs(array_fill('k'::text, ARRAY[1000]), NULL, array_fill('{"queue": "wq_plain"}'::jsonb, ARRAY[1000])) \g /dev/null
select awa.insert_jobs(array_fill('k'::text, ARRAY[1000]), NULL, array_fill('{"queue": "wq_aged"}'::jsonb, ARRAY[1000])) \g /dev/null
select pg_current_wal_insert_lsn() as a0 \gset
select count(*) from (select awa.claim_ready_runtime('wq_plain', 100) from generate_series(1,10)) x \g /dev/null
select pg_current_wal_insert_lsn() as a1 \gset
select count(*) from (select awa.claim_ready_runtime('wq_aged', 100) from generate_series(1,10)) x \g /dev/null
select pg_current_wal_insert_lsn() as a2 \gset
select awa.pause_queue('wq_plain') \g /dev/null
select pg_current_wal_insert_lsn() as a3 \gset
select count(*) from (select awa.claim_ready_runtime('wq_plain', 100) from generate_series(1,10)) x \g /dev/null
select pg_current_wal_insert_lsn() as a4 \gset
select round(pg_wal_lsn_diff(:'a1', :'a0')/1000.0,1) plain_claim_b_per_job, round(pg_wal_lsn_diff(:'a2', :'a1')/1000.0,1) aged_claim_b_per_job, pg_wal_lsn_diff(:'a3', :'a2') pause_bytes, pg_wal_lsn_diff(:'a4', :'a3') paused_claims_bytes;
