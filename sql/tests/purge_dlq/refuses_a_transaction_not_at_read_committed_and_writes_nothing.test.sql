-- awa.purge_dlq in a REPEATABLE READ or SERIALIZABLE transaction raises AW040,
-- naming itself and the level, and writes nothing, though a failed job waits in the DLQ;
-- at READ COMMITTED the same call goes through. Each level needs its own
-- transaction: the reports cross the rollbacks in psql variables (\gset).
\set report 'awa_test.outcome_after_dlq($$select * from awa.purge_dlq(p_queue => ''iso'')$$)'
\set function 'awa.purge_dlq'
\ir ../refused_at_each_level.psql
