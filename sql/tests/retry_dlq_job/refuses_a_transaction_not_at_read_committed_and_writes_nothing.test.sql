-- awa.retry_dlq_job in a REPEATABLE READ or SERIALIZABLE transaction raises AW040,
-- naming itself and the level, and writes nothing, though a failed job waits in the DLQ;
-- at READ COMMITTED the same call goes through. Each level needs its own
-- transaction: the reports cross the rollbacks in psql variables (\gset).
\set report 'awa_test.outcome_after_dlq($$select * from awa.retry_dlq_job((select id from j))$$)'
\set function 'awa.retry_dlq_job'
\ir ../refused_at_each_level.psql
