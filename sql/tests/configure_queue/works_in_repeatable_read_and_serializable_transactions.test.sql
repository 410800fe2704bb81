-- awa.configure_queue is not guarded: it works the same in REPEATABLE READ and
-- SERIALIZABLE transactions as at READ COMMITTED (its concurrent cases are
-- in internal/sqlrace/isolation_test.go).
\set report 'awa_test.outcome($$select * from awa.configure_queue(''iso_cfg'', ''{"dlq": true}'')$$)'
\set effect '(select count(*) = 1 as ok from awa.queue_meta where queue = ''iso_cfg'' and dlq_enabled)'
\ir ../works_at_each_level.psql
