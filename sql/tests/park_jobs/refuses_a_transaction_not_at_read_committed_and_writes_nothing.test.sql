-- awa.park_jobs in a REPEATABLE READ or SERIALIZABLE transaction raises AW040,
-- naming itself and the level, and writes nothing, though a registered attempt
-- waits to park; at READ COMMITTED the same call parks it. Each level needs
-- its own transaction: the reports cross the rollbacks in psql variables (\gset).
\set setup 'select awa_test.isolation_guard(false); create temp table c as select * from awa_test.claim_registered(''iso'', now()); select awa_test.isolation_guard(true)'
\set report 'awa_test.outcome($$select * from c, awa.park_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id])$$)'
\set function 'awa.park_jobs'
\ir ../refused_at_each_level.psql
