-- A release deletes only the named lease, not other leases of the same holder.
begin;
select plan(2);

select awa_test.held_lease();
select * from awa.acquire_leader_lease('rotation', '00000000-0000-0000-0000-0000000000a1', '30 seconds', '2030-01-01 12:00:00+00');

select results_eq(
  $$select name from awa.release_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1')$$,
  $$values ('maintenance'::text)$$,
  'the release returns only the named lease');
select results_eq(
  $$select name, holder from awa.leader_leases$$,
  $$values ('rotation'::text, '00000000-0000-0000-0000-0000000000a1'::uuid)$$,
  'the holder''s other lease is kept');

select * from finish();
rollback;
