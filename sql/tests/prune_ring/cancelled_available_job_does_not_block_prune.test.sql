-- An available job cancelled by the operator (a ready tombstone) is not live:
-- its sealed slot is pruned, tombstone and snapshot with it.
begin;
select plan(4);

create temp table j as select * from awa.insert_job('prune.k', '{}', '{"queue": "nq"}');
select * from awa.cancel_job((select id from j), 'not needed', now());
select * from awa.rotate_ring('queue', now());

select results_eq(
  $$select outcome, slot from awa.prune_ring('queue')$$,
  $$values ('pruned'::text, 0)$$,
  'the slot holding only a cancelled job is pruned');

select is((select count(*)::int from awa.ready_tombstones_0), 0, 'the tombstone is reclaimed');
select is((select count(*)::int from awa.ready_entries_0), 0, 'the ready row is reclaimed');
select is_empty($$select * from awa.claim_ready_runtime('nq', 10, null, now())$$, 'nothing becomes claimable');

select * from finish();
rollback;
