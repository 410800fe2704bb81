-- awa.cleanup_runtime_instances in a REPEATABLE READ or SERIALIZABLE transaction raises AW040,
-- naming itself and the level, and writes nothing, though a process stopped heartbeating a year ago;
-- at READ COMMITTED the same call goes through. Each level needs its own
-- transaction: the reports cross the rollbacks in psql variables (\gset).
\set setup 'select * from awa.heartbeat_instance(gen_random_uuid(), ''2030-01-01 00:00:00+00'');'
\set report 'awa_test.outcome($$select * from awa.cleanup_runtime_instances(''1 hour'', ''2031-01-01 00:00:00+00'')$$)'
\set function 'awa.cleanup_runtime_instances'
\ir ../refused_at_each_level.psql
