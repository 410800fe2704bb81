-- awa.fail_jobs in a REPEATABLE READ or SERIALIZABLE transaction raises AW040,
-- naming itself and the level, and writes nothing, though a claimed attempt is open;
-- at READ COMMITTED the same call goes through. Each level needs its own
-- transaction: the reports cross the rollbacks in psql variables (\gset).
\set report 'awa_test.outcome_after_claim($$select * from awa.fail_jobs(array(select id from c), array(select run_lease from c), array(select claim_slot from c), array(select receipt_id from c), array[''boom''])$$)'
\set function 'awa.fail_jobs'
\ir ../refused_at_each_level.psql
