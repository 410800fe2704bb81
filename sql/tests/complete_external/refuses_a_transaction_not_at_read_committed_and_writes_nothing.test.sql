-- awa.complete_external in a REPEATABLE READ or SERIALIZABLE transaction raises
-- AW040, naming itself and the level, and writes nothing, though a parked job
-- waits for it; at READ COMMITTED the same call completes it. Each level needs
-- its own transaction: the reports cross the rollbacks in psql variables (\gset).
\set setup 'select awa_test.isolation_guard(false); create temp table c as select * from awa_test.claim_parked(''iso'', now()); select awa_test.isolation_guard(true)'
\set report 'awa_test.outcome($$select o.* from c, awa.complete_external(c.callback_id, $j${"ok": true}$j$) o$$)'
\set function 'awa.complete_external'
\ir ../refused_at_each_level.psql
