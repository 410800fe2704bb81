-- awa.claim_ready_runtime in a REPEATABLE READ or SERIALIZABLE transaction raises AW040,
-- naming itself and the level, and writes nothing, though a ready job is there to claim;
-- at READ COMMITTED the same call goes through. Each level needs its own
-- transaction: the reports cross the rollbacks in psql variables (\gset).
\set setup 'select * from awa.insert_job(''iso_job'', ''{}'', ''{"queue": "iso"}'');'
\set report 'awa_test.outcome($$select * from awa.claim_ready_runtime(''iso'', 1)$$)'
\set function 'awa.claim_ready_runtime'
\ir ../refused_at_each_level.psql
