-- A producer whose insert into the slot is not committed yet (invisible to
-- the live proof) still holds a lock on the slot's child table, so prune
-- cannot truncate under it: skipped_blocked. After the producer is gone the
-- slot is pruned. The producer is a second session opened with dblink.
begin;
select plan(5);

select awa_test.connect_other('-c lock_timeout=5s -c statement_timeout=10s');
select lives_ok(
  $$select dblink_exec('awa_other', 'begin; do $x$ begin perform awa.insert_job(''prune.k'', ''{}'', ''{"queue": "inflight"}''); end $x$')$$,
  'the second session inserts a job into slot 0 and does not commit (fixture)');

select awa_test.completed_job('nq');
select * from awa.rotate_ring('queue', now());

select results_eq(
  $$select outcome, slot, detail from awa.prune_ring('queue', 20)$$,
  $$values ('skipped_blocked'::text, 0, 'awa.ready_entries_0 not free within 20 ms'::text)$$,
  'prune of slot 0 is skipped_blocked while the producer is in flight');
select is((select count(*)::int from awa.ready_entries_0), 1, 'our own finished row in slot 0 is still there');

select dblink_exec('awa_other', 'rollback');
select dblink_disconnect('awa_other');

select is((select outcome from awa.prune_ring('queue', 20)), 'pruned', 'once the producer is gone slot 0 is pruned');

select * from finish();
rollback;
