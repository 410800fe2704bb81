-- Each ring's rotation ledger starts with the genesis row (generation 0, slot 0),
-- so every ring's current slot is 0.
begin;
select plan(2);

select results_eq(
  $$select ring, generation, slot from awa.ring_rotations order by ring$$,
  $$values ('claim'::text, 0::bigint, 0), ('cursor'::text, 0::bigint, 0), ('lease'::text, 0::bigint, 0),
           ('queue'::text, 0::bigint, 0)$$,
  'one genesis row per ring');
select results_eq(
  $$select awa._current_slot('queue'), awa._current_slot('claim'), awa._current_slot('lease'),
           awa._current_slot('cursor')$$,
  $$values (0, 0, 0, 0)$$,
  'every ring is at slot 0');

select * from finish();
rollback;
