-- Once the lease has expired another holder takes it: it becomes the leader
-- until p_now + ttl, acquired_at becomes its own acquisition, and the former
-- holder is then refused and sees the new one.
begin;
select plan(4);

select awa_test.held_lease();

select results_eq(
  $$select name, holder, is_leader, expires_at
    from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000b1', '30 seconds', '2030-01-01 12:01:00+00')$$,
  $$values ('maintenance'::text, '00000000-0000-0000-0000-0000000000b1'::uuid, true, '2030-01-01 12:01:30+00'::timestamptz)$$,
  'after the expiry another holder becomes the leader');
select results_eq(
  $$select holder, acquired_at, expires_at from awa.leader_leases where name = 'maintenance'$$,
  $$values ('00000000-0000-0000-0000-0000000000b1'::uuid, '2030-01-01 12:01:00+00'::timestamptz, '2030-01-01 12:01:30+00'::timestamptz)$$,
  'the lease row names the new holder, acquired at its p_now');
select is((select count(*) from awa.leader_leases), 1::bigint, 'the lease is still one row');
select results_eq(
  $$select holder, is_leader, expires_at
    from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', '30 seconds', '2030-01-01 12:01:10+00')$$,
  $$values ('00000000-0000-0000-0000-0000000000b1'::uuid, false, '2030-01-01 12:01:30+00'::timestamptz)$$,
  'the former holder is refused and sees the new holder');

select * from finish();
rollback;
