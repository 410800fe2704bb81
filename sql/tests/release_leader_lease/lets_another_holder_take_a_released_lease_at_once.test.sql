-- After the holder releases, another holder takes the lease at once, long
-- before the released lease would have expired.
begin;
select plan(2);

select * from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', '1 hour', '2030-01-01 12:00:00+00');
select * from awa.release_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1');

select results_eq(
  $$select name, holder, is_leader, expires_at
    from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000b1', '30 seconds', '2030-01-01 12:00:01+00')$$,
  $$values ('maintenance'::text, '00000000-0000-0000-0000-0000000000b1'::uuid, true, '2030-01-01 12:00:31+00'::timestamptz)$$,
  'another holder becomes the leader right after the release');
select results_eq(
  $$select holder, acquired_at from awa.leader_leases where name = 'maintenance'$$,
  $$values ('00000000-0000-0000-0000-0000000000b1'::uuid, '2030-01-01 12:00:01+00'::timestamptz)$$,
  'the lease row names the new holder, acquired at its p_now');

select * from finish();
rollback;
