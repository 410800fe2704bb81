-- awa.retire_idle_key_lanes in a REPEATABLE READ or SERIALIZABLE transaction
-- raises AW040, naming itself and the level, and writes nothing, though a
-- drained key lane is listed; at READ COMMITTED the same call retires it.
-- Each level needs its own transaction: the reports cross the rollbacks in
-- psql variables (\gset).
\set setup 'insert into awa.active_key_lanes (queue, lane_id, lane_queue, activated_at) values ($q$kq$q$, 424242, $q$kq#424242$q$, now() - interval $i$1 hour$i$)'
\set report 'awa_test.outcome($$select * from awa.retire_idle_key_lanes()$$)'
\set function 'awa.retire_idle_key_lanes'
\ir ../refused_at_each_level.psql
