-- awa.insert_job works inside REPEATABLE READ and SERIALIZABLE transactions as at
-- READ COMMITTED (applications enqueue from their own transactions): the
-- jobs are inserted and visible to the transaction in their state.
\set report 'awa_test.outcome($$select count(*) as n from (select * from awa.insert_job(''iso_job'', ''{}'', ''{"queue": "iso_ins"}'')) as i$$)'
\set jobs 1
\ir ../inserts_at_each_level.psql
