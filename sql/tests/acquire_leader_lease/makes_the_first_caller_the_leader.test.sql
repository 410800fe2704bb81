-- The first caller for a free lease becomes its leader: it gets is_leader
-- true and an expiry of p_now + ttl, and awa.leader_leases holds its row,
-- acquired at p_now. Without p_now the database clock is used.
begin;
select plan(4);

select results_eq(
  $$select name, holder, is_leader, expires_at
    from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', '30 seconds', '2030-01-01 12:00:00+00')$$,
  $$values ('maintenance'::text, '00000000-0000-0000-0000-0000000000a1'::uuid, true, '2030-01-01 12:00:30+00'::timestamptz)$$,
  'the first caller is the leader until p_now + ttl');
select awa_test.only_the_held_lease('awa.leader_leases holds one row for the lease, acquired at p_now');

-- Without p_now: clock_timestamp() (not now()), so bound it by the clock
-- read just before and just after the call.
create temp table clock_before as select clock_timestamp() as t;
create temp table unpinned as
  select * from awa.acquire_leader_lease('other', '00000000-0000-0000-0000-0000000000a2', '1 minute');
create temp table clock_after as select clock_timestamp() as t;
select is((select is_leader from unpinned), true, 'without p_now the first caller is the leader');
select ok((select expires_at between (select t from clock_before) + interval '1 minute'
                                 and (select t from clock_after) + interval '1 minute' from unpinned),
  'without p_now the expiry is the clock time of the call + ttl');

select * from finish();
rollback;
