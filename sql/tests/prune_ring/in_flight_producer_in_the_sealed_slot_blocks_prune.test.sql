-- A producer whose insert into the slot is not committed yet (invisible to
-- the live proof) still holds a lock on the slot's child table, so prune
-- cannot truncate under it: skipped_blocked. A producer of a batch row holds
-- the slot's ready_batches child the same way, so with both in flight prune
-- names ready_entries_0, then, once the first is gone, ready_batches_0.
-- After both are gone the slot is pruned. The producers are two more
-- sessions opened with dblink.
begin;
select plan(8);

select awa_test.connect_other('-c lock_timeout=5s -c statement_timeout=10s');
select lives_ok(
  $$select dblink_exec('awa_other', 'begin; do $x$ begin perform awa.insert_job(''prune.k'', ''{}'', ''{"queue": "inflight"}''); end $x$')$$,
  'the second session inserts a job into slot 0 and does not commit (fixture)');
select dblink_connect('awa_batch', format('host=%s port=%s dbname=%s user=%s options=%L',
  coalesce(host(inet_server_addr()), split_part(current_setting('unix_socket_directories'), ',', 1)),
  current_setting('port'), current_database(), current_user, '-c lock_timeout=5s -c statement_timeout=10s'));
select lives_ok(
  $$select dblink_exec('awa_batch', $q$begin; do $x$ begin perform awa_test.batch_row(array['p', 'p'], null,
                                     array_fill('{"queue": "inflight_b"}'::jsonb, array[2])); end $x$ $q$)$$,
  'a third session writes a batch row into slot 0 and does not commit (fixture)');

select awa_test.completed_job('nq');
select * from awa.rotate_ring('queue', now());

select results_eq(
  $$select outcome, slot, detail from awa.prune_ring('queue', 20)$$,
  $$values ('skipped_blocked'::text, 0, 'awa.ready_entries_0 not free within 20 ms'::text)$$,
  'prune of slot 0 is skipped_blocked while the producer is in flight');
select is((select count(*)::int from awa.ready_entries_0), 1, 'our own finished row in slot 0 is still there');

select dblink_exec('awa_other', 'rollback');
select dblink_disconnect('awa_other');
select results_eq(
  $$select outcome, slot, detail from awa.prune_ring('queue', 20)$$,
  $$values ('skipped_blocked'::text, 0, 'awa.ready_batches_0 not free within 20 ms'::text)$$,
  'then skipped_blocked while the batch row''s producer is in flight');
select is((select n from dblink('awa_batch', 'select count(*) from awa.ready_batches_0') as t (n bigint)), 1::bigint,
          'its batch row is in slot 0 (its own view)');

select dblink_exec('awa_batch', 'rollback');
select dblink_disconnect('awa_batch');
select is((select outcome from awa.prune_ring('queue', 20)), 'pruned', 'once both producers are gone slot 0 is pruned');

select * from finish();
rollback;
