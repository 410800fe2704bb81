-- A held queue slot (awa.ring_held_slots: prune left it to a large backlog)
-- is not in the rotation: wrapping round, rotate takes the slot after it.
-- docs/storage.md, "Held slots".
begin;
select plan(3);

select awa_test.large_backlog('hq', 'rotate.k');
select * from awa.prune_ring('queue', 50, 0, 1000);

select is(awa_test.turn('queue', 14, 'oq', true), 15, 'fourteen more rotations reach slot 15');
select awa_test.completed_job('oq');
select results_eq($$select outcome, slot, detail from awa.rotate_ring('queue', now())$$,
                  $$values ('rotated'::text, 1, 'sealed slot 15'::text)$$,
                  'the rotation after slot 15 takes slot 1, passing over the held slot 0');
select is((select count(*)::int from awa.ready_entries_0), 10001, 'the held slot keeps its jobs');

select * from finish();
rollback;
