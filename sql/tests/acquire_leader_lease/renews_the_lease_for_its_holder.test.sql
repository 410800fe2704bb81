-- The holder calling again renews its lease: the expiry moves to p_now + ttl
-- (the ttl of this call), acquired_at keeps the original acquisition, and
-- the lease stays one row.
begin;
select plan(5);

select awa_test.held_lease();

select results_eq(
  $$select name, holder, is_leader, expires_at
    from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', '30 seconds', '2030-01-01 12:00:10+00')$$,
  $$values ('maintenance'::text, '00000000-0000-0000-0000-0000000000a1'::uuid, true, '2030-01-01 12:00:40+00'::timestamptz)$$,
  'the renewal keeps the holder the leader with the expiry moved to p_now + ttl');
select results_eq(
  $$select holder, acquired_at, expires_at from awa.leader_leases where name = 'maintenance'$$,
  $$values ('00000000-0000-0000-0000-0000000000a1'::uuid, '2030-01-01 12:00:00+00'::timestamptz, '2030-01-01 12:00:40+00'::timestamptz)$$,
  'the stored expiry moved and acquired_at is the original acquisition');

select results_eq(
  $$select is_leader, expires_at
    from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', '2 minutes', '2030-01-01 12:00:20+00')$$,
  $$values (true, '2030-01-01 12:02:20+00'::timestamptz)$$,
  'a renewal with another ttl sets the expiry to p_now + that ttl');
select is((select acquired_at from awa.leader_leases where name = 'maintenance'), '2030-01-01 12:00:00+00'::timestamptz,
  'acquired_at is kept across renewals');
select is((select count(*) from awa.leader_leases), 1::bigint, 'the lease is still one row');

select * from finish();
rollback;
