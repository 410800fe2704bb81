-- awa.fire_periodic_job in a REPEATABLE READ or SERIALIZABLE transaction
-- raises AW040, naming itself and the level, and writes nothing, though the
-- schedule is due; at READ COMMITTED the same call fires. Each level needs
-- its own transaction: the reports cross the rollbacks in psql variables (\gset).
\set setup 'select awa.upsert_periodic_job(''iso_p'', ''@hourly'', ''iso_job'', p_now => ''2030-01-01 00:00Z'');'
\set report 'awa_test.outcome($$select * from awa.fire_periodic_job(''iso_p'', 1, null, null, ''2030-01-01 01:00Z'')$$)'
\set function 'awa.fire_periodic_job'
\ir ../refused_at_each_level.psql
