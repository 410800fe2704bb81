-- awa.erase_job in a REPEATABLE READ or SERIALIZABLE transaction raises AW040,
-- naming itself and the level, and writes nothing, though a job is there to
-- erase; at READ COMMITTED the same call goes through.
\set setup 'create temp table j as select * from awa.insert_job(''iso_job'', ''{"secret": 1}'', ''{"queue": "iso"}'');'
\set report 'awa_test.outcome($$select * from awa.erase_job((select id from j))$$)'
\set function 'awa.erase_job'
\ir ../refused_at_each_level.psql
