-- awa.rescue_expired_callbacks in a REPEATABLE READ or SERIALIZABLE transaction
-- raises AW040, naming itself and the level, and writes nothing, though a
-- parked job has timed out; at READ COMMITTED the same call retries it. Each
-- level needs its own transaction: the reports cross the rollbacks in psql
-- variables (\gset).
\set setup 'select awa_test.isolation_guard(false); create temp table c as select * from awa_test.claim_parked(''iso'', now() - interval ''1 hour'', interval ''1 minute''); select awa_test.isolation_guard(true)'
\set report 'awa_test.outcome($$select * from awa.rescue_expired_callbacks()$$)'
\set function 'awa.rescue_expired_callbacks'
\ir ../refused_at_each_level.psql
