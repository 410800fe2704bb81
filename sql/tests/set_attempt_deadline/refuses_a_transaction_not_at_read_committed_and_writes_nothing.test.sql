-- awa.set_attempt_deadline in a REPEATABLE READ or SERIALIZABLE transaction
-- raises AW040, naming itself and the level, and writes nothing, though a
-- claimed attempt is open; at READ COMMITTED the same call goes through. Each
-- level needs its own transaction: the reports cross the rollbacks in psql
-- variables (\gset).
\set report 'awa_test.outcome_after_claim($$select * from awa.set_attempt_deadline((select id from c), (select run_lease from c), (select claim_slot from c), (select receipt_id from c), now() + interval $i$1 hour$i$)$$)'
\set function 'awa.set_attempt_deadline'
\ir ../refused_at_each_level.psql
