-- awa.insert_staged_jobs works inside REPEATABLE READ and SERIALIZABLE transactions as at
-- READ COMMITTED (applications enqueue from their own transactions): the
-- jobs are inserted and visible to the transaction in their state.
\set setup 'select awa.open_job_stage(); insert into pg_temp.awa_job_stage (kind, args, opts) values (''a'', ''{}'', ''{"queue": "iso_ins"}''), (''b'', ''{}'', null);'
\set report 'awa_test.outcome($$select count(*) as n from (select * from awa.insert_staged_jobs()) as i$$)'
\set jobs 2
\ir ../inserts_at_each_level.psql
