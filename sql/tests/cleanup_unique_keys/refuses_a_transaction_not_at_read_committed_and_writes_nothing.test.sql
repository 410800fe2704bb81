-- awa.cleanup_unique_keys in a REPEATABLE READ or SERIALIZABLE transaction
-- raises AW040, naming itself and the level, and writes nothing, though the
-- key row of a job that is gone waits; at READ COMMITTED the same call
-- deletes it. Each level needs its own transaction: the reports cross the
-- rollbacks in psql variables (\gset).
\set setup 'insert into awa.unique_keys (unique_key, job_id, states, taken_at) values ($k$\\x01$k$, 424242, $s${available}$s$, now())'
\set report 'awa_test.outcome($$select * from awa.cleanup_unique_keys()$$)'
\set function 'awa.cleanup_unique_keys'
\ir ../refused_at_each_level.psql
