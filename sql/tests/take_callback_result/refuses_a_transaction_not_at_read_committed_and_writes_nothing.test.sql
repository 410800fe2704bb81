-- awa.take_callback_result in a REPEATABLE READ or SERIALIZABLE transaction raises
-- AW040, naming itself and the level, and writes nothing, though a resumed
-- result waits; at READ COMMITTED the same call takes it (and deletes the
-- registration). Each level needs its own transaction: the reports cross the
-- rollbacks in psql variables (\gset).
\set setup 'select awa_test.isolation_guard(false); create temp table c as select * from awa_test.claim_registered(''iso'', now()); select count(*) from c, awa.resume_external(c.callback_id, ''{}''); select awa_test.isolation_guard(true)'
\set report 'awa_test.outcome($$select t.* from c, awa.take_callback_result(c.id, c.run_lease, c.claim_slot, c.receipt_id, c.callback_id) t$$)'
\set function 'awa.take_callback_result'
\ir ../refused_at_each_level.psql
