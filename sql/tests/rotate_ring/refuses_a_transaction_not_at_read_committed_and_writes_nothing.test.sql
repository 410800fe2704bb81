-- awa.rotate_ring in a REPEATABLE READ or SERIALIZABLE transaction raises AW040,
-- naming itself and the level, and writes nothing, though the current queue slot holds a job;
-- at READ COMMITTED the same call goes through. Each level needs its own
-- transaction: the reports cross the rollbacks in psql variables (\gset).
\set setup 'select * from awa.insert_job(''iso_job'', ''{}'', ''{"queue": "iso"}'');'
\set report 'awa_test.outcome($$select * from awa.rotate_ring(''queue'', now(), ''0 seconds'')$$)'
\set function 'awa.rotate_ring'
\ir ../refused_at_each_level.psql
