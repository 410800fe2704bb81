-- awa.bulk_cancel_jobs in a REPEATABLE READ or SERIALIZABLE transaction raises
-- AW040, naming itself and the level, and writes nothing, though a job is
-- there to cancel; at READ COMMITTED the same call goes through.
\set setup 'create temp table j as select * from awa.insert_job(''iso_job'', ''{}'', ''{"queue": "iso"}'');'
\set report 'awa_test.outcome($$select * from awa.bulk_cancel_jobs(p_queue => ''iso'')$$)'
\set function 'awa.bulk_cancel_jobs'
\ir ../refused_at_each_level.psql
