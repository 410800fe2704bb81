-- Rotating a ring whose current slot holds rows appends generation + 1 with
-- slot = generation mod slot_count, and reports it.
begin;
select plan(6);

select * from awa.insert_job('rotate.k', '{}', '{"queue": "oq"}');

select results_eq(
  $$select ring, action, outcome, slot, generation, detail from awa.rotate_ring('queue', now() + interval '1 second')$$,
  $$values ('queue'::text, 'rotate'::text, 'rotated'::text, 1, 1::bigint, 'sealed slot 0'::text)$$,
  'the queue ring rotates from slot 0 to slot 1, generation 1');

select results_eq(
  $$select generation, slot, rotated_at from awa.ring_rotations where ring = 'queue' order by generation$$,
  $$values (0::bigint, 0, (select rotated_at from awa.ring_rotations where ring = 'queue' and generation = 0)),
           (1::bigint, 1, now() + interval '1 second')$$,
  'the ledger keeps genesis and appends (1, 1) stamped with p_now');

select is(awa._current_slot('queue'), 1, 'the current queue slot is 1');

select * from awa.insert_job('rotate.k', '{}', '{"queue": "oq"}');

select results_eq(
  $$select outcome, slot, generation from awa.rotate_ring('queue', now())$$,
  $$values ('rotated'::text, 2, 2::bigint)$$,
  'the next rotation goes to slot 2, generation 2');

select is((select count(*)::int from awa.ring_rotations where ring = 'queue'), 3,
          'one ledger row per rotation');

select is(awa._current_slot('claim'), 0, 'the other rings do not move');

select * from finish();
rollback;
