-- awa.queue_counts counts the same in REPEATABLE READ and SERIALIZABLE
-- transactions as at READ COMMITTED when no prune intervenes (across a
-- prune, outside READ COMMITTED, it raises 40001 instead of counting what
-- never existed: internal/sqlrace, docs/storage.md, "Read surfaces").
\set setup 'select * from awa.insert_job(''k'', ''{}'', ''{"queue": "iso_pend"}'');'
\set report 'awa_test.outcome($$select * from awa.queue_counts(''iso_pend'')$$)'
\set effect '(select available = 1 as ok from awa.queue_counts(''iso_pend''))'
\ir ../works_at_each_level.psql
