-- awa.bulk_retry_jobs in a REPEATABLE READ or SERIALIZABLE transaction raises
-- AW040, naming itself and the level, and writes nothing, though a scheduled
-- job is there to run now; at READ COMMITTED the same call goes through.
\set setup 'create temp table j as select * from awa.insert_job(''iso_job'', ''{}'', jsonb_build_object(''queue'', ''iso'', ''run_at'', now() + interval ''1 day''));'
\set report 'awa_test.outcome($$select * from awa.bulk_retry_jobs(array[''scheduled'']::awa.job_state[], ''iso'')$$)'
\set function 'awa.bulk_retry_jobs'
\ir ../refused_at_each_level.psql
