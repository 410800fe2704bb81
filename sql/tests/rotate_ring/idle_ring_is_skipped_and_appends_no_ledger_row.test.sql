-- Rotating a ring whose current slot is empty does nothing: skipped_idle, the
-- cursor stays, no ledger row is appended.
begin;
select plan(5);

select results_eq(
  $$select ring, action, outcome, slot, generation, detail from awa.rotate_ring('queue', now())$$,
  $$values ('queue'::text, 'rotate'::text, 'skipped_idle'::text, 0, 0::bigint, 'current slot is empty'::text)$$,
  'an empty queue ring is skipped_idle at slot 0, generation 0');

select results_eq(
  $$select outcome from awa.rotate_ring('claim', now()) union all select outcome from awa.rotate_ring('lease', now())
    union all select outcome from awa.rotate_ring('cursor', now())$$,
  $$values ('skipped_idle'::text), ('skipped_idle'::text), ('skipped_idle'::text)$$,
  'empty claim, lease and cursor rings are skipped_idle too');

select awa_test.writes_nothing($$select * from awa.rotate_ring('queue', now())$$,
                               'an idle rotate writes nothing');

select is((select count(*)::int from awa.ring_rotations), 4, 'the ledger still holds only the four genesis rows');

select results_eq(
  $$select ring, generation, slot from awa.ring_rotations order by ring$$,
  $$values ('claim'::text, 0::bigint, 0), ('cursor'::text, 0::bigint, 0), ('lease'::text, 0::bigint, 0),
           ('queue'::text, 0::bigint, 0)$$,
  'every ring is still at its genesis');

select * from finish();
rollback;
