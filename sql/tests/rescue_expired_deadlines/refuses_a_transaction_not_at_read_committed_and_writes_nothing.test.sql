-- awa.rescue_expired_deadlines in a REPEATABLE READ or SERIALIZABLE transaction raises AW040,
-- naming itself and the level, and writes nothing, though a claim's deadline has passed;
-- at READ COMMITTED the same call goes through. Each level needs its own
-- transaction: the reports cross the rollbacks in psql variables (\gset).
\set setup 'select * from awa.configure_queue(''iso'', ''{"deadline_seconds": 1}'');'
\set report 'awa_test.outcome_after_claim($$select * from awa.rescue_expired_deadlines(100, ''2030-01-02 00:00:00+00'')$$)'
\set function 'awa.rescue_expired_deadlines'
\ir ../refused_at_each_level.psql
