-- awa.promote_due_jobs in a REPEATABLE READ or SERIALIZABLE transaction raises AW040,
-- naming itself and the level, and writes nothing, though a scheduled job is due;
-- at READ COMMITTED the same call goes through. Each level needs its own
-- transaction: the reports cross the rollbacks in psql variables (\gset).
\set setup 'select * from awa.insert_job(''iso_job'', ''{}'', ''{"queue": "iso", "run_at": "2030-01-01T00:00:00Z"}'');'
\set report 'awa_test.outcome($$select * from awa.promote_due_jobs(100, ''2031-01-01 00:00:00+00'')$$)'
\set function 'awa.promote_due_jobs'
\ir ../refused_at_each_level.psql
