-- A lease acquired for ttl is held for [acquired_at, acquired_at + ttl): at
-- the expiry instant itself another holder can take it.
begin;
select plan(2);

select awa_test.held_lease();

select results_eq(
  $$select holder, is_leader, expires_at
    from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000b1', '30 seconds', '2030-01-01 12:00:30+00')$$,
  $$values ('00000000-0000-0000-0000-0000000000b1'::uuid, true, '2030-01-01 12:01:00+00'::timestamptz)$$,
  'another holder takes the lease at exactly its expiry');
select is((select acquired_at from awa.leader_leases where name = 'maintenance'), '2030-01-01 12:00:30+00'::timestamptz,
  'acquired_at is the new holder''s acquisition');

select * from finish();
rollback;
