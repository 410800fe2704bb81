-- awa.cleanup_attempt_state in a REPEATABLE READ or SERIALIZABLE transaction raises
-- AW040, naming itself and the level, and writes nothing, though the checkpoint
-- of a job that is gone waits; at READ COMMITTED the same call deletes it. Each
-- level needs its own transaction: the reports cross the rollbacks in psql
-- variables (\gset).
\set setup 'insert into awa.attempt_state (job_id, run_lease, progress, updated_at) values (424242, 1, $j${}$j$, now())'
\set report 'awa_test.outcome($$select * from awa.cleanup_attempt_state()$$)'
\set function 'awa.cleanup_attempt_state'
\ir ../refused_at_each_level.psql
