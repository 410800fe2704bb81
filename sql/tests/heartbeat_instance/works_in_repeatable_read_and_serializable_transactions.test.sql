-- awa.heartbeat_instance is not guarded: it works the same in REPEATABLE READ and
-- SERIALIZABLE transactions as at READ COMMITTED (its concurrent cases are
-- in internal/sqlrace/isolation_test.go).
\set report 'awa_test.outcome($$select * from awa.heartbeat_instance(''00000000-0000-0000-0000-0000000000aa'')$$)'
\set effect '(select count(*) = 1 as ok from awa.runtime_instances where instance_id = ''00000000-0000-0000-0000-0000000000aa'')'
\ir ../works_at_each_level.psql
