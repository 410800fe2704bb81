-- While the lease is live another holder is refused: it gets is_leader false
-- and sees the current holder and its expiry; the lease row is not touched.
-- Two racing sessions cannot be shown in one pgTAP transaction; the Go tests
-- cover the concurrent case.
begin;
select plan(5);

select awa_test.held_lease();

select results_eq(
  $$select name, holder, is_leader, expires_at
    from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000b1', '30 seconds', '2030-01-01 12:00:10+00')$$,
  $$values ('maintenance'::text, '00000000-0000-0000-0000-0000000000a1'::uuid, false, '2030-01-01 12:00:30+00'::timestamptz)$$,
  'a second holder is refused and sees the current holder and expiry');
select results_eq(
  $$select name, holder, is_leader, expires_at
    from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000b1', '30 seconds', '2030-01-01 12:00:29.999999+00')$$,
  $$values ('maintenance'::text, '00000000-0000-0000-0000-0000000000a1'::uuid, false, '2030-01-01 12:00:30+00'::timestamptz)$$,
  'a second holder is still refused one microsecond before the expiry');
select awa_test.writes_nothing(
  $$select * from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000b1', '30 seconds', '2030-01-01 12:00:20+00')$$,
  'a refused attempt writes nothing');
select awa_test.only_the_held_lease('the lease row still names the first holder with its original times');
select is(
  (select is_leader from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000b1', '1 hour', '2030-01-01 12:00:10+00')),
  false, 'a longer ttl does not help a second holder take a live lease');

select * from finish();
rollback;
