-- awa.rescue_stale_claims in a REPEATABLE READ or SERIALIZABLE transaction raises AW040,
-- naming itself and the level, and writes nothing, though a claim without a process is an hour old;
-- at READ COMMITTED the same call goes through. Each level needs its own
-- transaction: the reports cross the rollbacks in psql variables (\gset).
\set report 'awa_test.outcome_after_claim($$select * from awa.rescue_stale_claims(''1 minute'', 100, ''2030-01-01 01:00:00+00'')$$)'
\set function 'awa.rescue_stale_claims'
\ir ../refused_at_each_level.psql
