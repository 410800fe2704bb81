-- The ttl bounds are inclusive: 1 second and 1 hour are both accepted.
begin;
select plan(2);

select results_eq(
  $$select is_leader, expires_at
    from awa.acquire_leader_lease('short', '00000000-0000-0000-0000-0000000000a1', '1 second', '2030-01-01 12:00:00+00')$$,
  $$values (true, '2030-01-01 12:00:01+00'::timestamptz)$$,
  'a ttl of 1 second is accepted');
select results_eq(
  $$select is_leader, expires_at
    from awa.acquire_leader_lease('long', '00000000-0000-0000-0000-0000000000a1', '1 hour', '2030-01-01 12:00:00+00')$$,
  $$values (true, '2030-01-01 13:00:00+00'::timestamptz)$$,
  'a ttl of 1 hour is accepted');

select * from finish();
rollback;
