-- awa.reject_periodic_schedule in a REPEATABLE READ or SERIALIZABLE
-- transaction raises AW040, naming itself and the level, and writes nothing;
-- at READ COMMITTED the same call records the error. Each level needs its own
-- transaction: the reports cross the rollbacks in psql variables (\gset).
\set setup 'select awa.upsert_periodic_job(''iso_p'', ''@hourly'', ''iso_job'');'
\set report 'awa_test.outcome($$select * from awa.reject_periodic_schedule(''iso_p'', 1, ''bad'')$$)'
\set function 'awa.reject_periodic_schedule'
\ir ../refused_at_each_level.psql
