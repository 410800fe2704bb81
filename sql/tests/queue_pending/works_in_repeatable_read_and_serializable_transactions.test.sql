-- awa.queue_pending is not guarded: it works the same in REPEATABLE READ and
-- SERIALIZABLE transactions as at READ COMMITTED (its concurrent cases are
-- in internal/sqlrace/isolation_test.go).
\set setup 'select * from awa.insert_job(''k'', ''{}'', ''{"queue": "iso_pend"}'');'
\set report 'awa_test.outcome($$select * from awa.queue_pending(''iso_pend'')$$)'
\set effect '(select pending as ok from awa.queue_pending(''iso_pend''))'
\ir ../works_at_each_level.psql
