-- awa.insert_jobs works inside REPEATABLE READ and SERIALIZABLE transactions as at
-- READ COMMITTED (applications enqueue from their own transactions): the
-- jobs are inserted and visible to the transaction in their state.
\set report 'awa_test.outcome($$select count(*) as n from (select * from awa.insert_jobs(array[''a'', ''b'', ''c''], null, array[''{"queue": "iso_ins"}'', ''{"queue": "iso_ins", "priority": 1}'', ''{"queue": "iso_ins", "run_at": "2999-01-01T00:00:00Z"}'']::jsonb[])) as i$$)'
\set jobs 3
\ir ../inserts_at_each_level.psql
