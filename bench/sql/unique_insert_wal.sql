-- WAL per job of unique inserts against plain ones (docs/benchmarks.md,
-- "Analysis", unique jobs): a batch of 1000 plain jobs, 1000 new unique keys,
-- the same 1000 again (all duplicates), the same 1000 after their jobs were
-- cancelled (every key taken over), then 200 single inserts of each kind.
-- Measured with pg_current_wal_insert_lsn() around each step, after a warm-up
-- and a CHECKPOINT. Run it once on a fresh database with the substrate
-- installed (scripts/apply-sql.sh, or awa migrate up):
--   psql -X -q -d "$DSN" -f bench/sql/unique_insert_wal.sql
-- then read the dead tuples it left in the key table:
--   SELECT n_tup_ins, n_tup_upd, n_dead_tup FROM pg_stat_user_tables WHERE relname = 'unique_keys';
\set ON_ERROR_STOP 1
select count(*) from awa.insert_jobs(array_fill('w'::text, array[100]), null, array_fill('{"queue":"walq"}'::jsonb, array[100])) \g /dev/null
select count(*) from awa.insert_unique_jobs(array_fill('w'::text, array[100]), array(select jsonb_build_object('w', i) from generate_series(1,100) i), array_fill('{"queue":"walq","unique":{"by_args":true}}'::jsonb, array[100])) \g /dev/null
CHECKPOINT;
select count(*) from awa.insert_jobs(array_fill('w'::text, array[100]), null, array_fill('{"queue":"walq"}'::jsonb, array[100])) \g /dev/null
select count(*) from awa.insert_unique_jobs(array_fill('w'::text, array[100]), array(select jsonb_build_object('w', i) from generate_series(101,200) i), array_fill('{"queue":"walq","unique":{"by_args":true}}'::jsonb, array[100])) \g /dev/null
create temp table m (ord serial, what text, lsn0 pg_lsn, lsn1 pg_lsn, n int);
create function pg_temp.start(p text, p_n int) returns void language sql as $$ insert into m (what, lsn0, n) values (p, pg_current_wal_insert_lsn(), p_n) $$;
create function pg_temp.stop() returns void language sql as $$ update m set lsn1 = pg_current_wal_insert_lsn() where lsn1 is null $$;
select pg_temp.start('plain batch: insert_jobs, 1000 jobs', 1000) \g /dev/null
select count(*) from awa.insert_jobs(array_fill('p'::text, array[1000]), array(select jsonb_build_object('i', i) from generate_series(1,1000) i), array_fill('{"queue":"walq"}'::jsonb, array[1000])) \g /dev/null
select pg_temp.stop() \g /dev/null
select pg_temp.start('unique batch: insert_unique_jobs, 1000 new keys', 1000) \g /dev/null
select count(*) from awa.insert_unique_jobs(array_fill('u'::text, array[1000]), array(select jsonb_build_object('i', i) from generate_series(1,1000) i), array_fill('{"queue":"walq","unique":{"by_args":true}}'::jsonb, array[1000])) \g /dev/null
select pg_temp.stop() \g /dev/null
select pg_temp.start('unique batch: the same 1000 again, all duplicates', 1000) \g /dev/null
select count(*) from awa.insert_unique_jobs(array_fill('u'::text, array[1000]), array(select jsonb_build_object('i', i) from generate_series(1,1000) i), array_fill('{"queue":"walq","unique":{"by_args":true}}'::jsonb, array[1000])) \g /dev/null
select pg_temp.stop() \g /dev/null
select count(*) from awa.jobs j, awa.cancel_job(j.id) where j.kind = 'u' \g /dev/null
select pg_temp.start('unique batch: the same 1000 after their jobs were cancelled (takeovers)', 1000) \g /dev/null
select count(*) from awa.insert_unique_jobs(array_fill('u'::text, array[1000]), array(select jsonb_build_object('i', i) from generate_series(1,1000) i), array_fill('{"queue":"walq","unique":{"by_args":true}}'::jsonb, array[1000])) \g /dev/null
select pg_temp.stop() \g /dev/null
select pg_temp.start('plain single: insert_job, 200 calls', 200) \g /dev/null
select count(*) from generate_series(1,200) i, lateral awa.insert_job('s', jsonb_build_object('i', i), '{"queue":"walq"}') \g /dev/null
select pg_temp.stop() \g /dev/null
select pg_temp.start('unique single: insert_unique_job, 200 new keys', 200) \g /dev/null
select count(*) from generate_series(1,200) i, lateral awa.insert_unique_job('s', jsonb_build_object('i', i), '{"queue":"walq","unique":{"by_args":true}}') \g /dev/null
select pg_temp.stop() \g /dev/null
select what, n as jobs, pg_wal_lsn_diff(lsn1, lsn0) as wal_bytes, round(pg_wal_lsn_diff(lsn1, lsn0) / n) as per_job from m order by ord;
