-- awa.resume_external in a REPEATABLE READ or SERIALIZABLE transaction raises
-- AW040, naming itself and the level, and writes nothing, though a handler
-- waits for it; at READ COMMITTED the same call resumes it. Each level needs
-- its own transaction: the reports cross the rollbacks in psql variables (\gset).
\set setup 'select awa_test.isolation_guard(false); create temp table c as select * from awa_test.claim_registered(''iso'', now()); select awa_test.isolation_guard(true)'
\set report 'awa_test.outcome($$select o.* from c, awa.resume_external(c.callback_id, $j${"n": 1}$j$) o$$)'
\set function 'awa.resume_external'
\ir ../refused_at_each_level.psql
