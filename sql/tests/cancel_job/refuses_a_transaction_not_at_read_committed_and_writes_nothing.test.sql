-- awa.cancel_job in a REPEATABLE READ or SERIALIZABLE transaction raises AW040,
-- naming itself and the level, and writes nothing, though an available job is there to cancel;
-- at READ COMMITTED the same call goes through. Each level needs its own
-- transaction: the reports cross the rollbacks in psql variables (\gset).
\set setup 'create temp table j as select * from awa.insert_job(''iso_job'', ''{}'', ''{"queue": "iso"}'');'
\set report 'awa_test.outcome($$select * from awa.cancel_job((select id from j))$$)'
\set function 'awa.cancel_job'
\ir ../refused_at_each_level.psql
