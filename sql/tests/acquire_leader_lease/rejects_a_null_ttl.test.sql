-- A NULL ttl raises AW010 and writes nothing, even from the current holder
-- (whose valid call would renew).
begin;
select plan(5);

-- Runs a prepared statement and swallows the awa error (class AW) it raises,
-- so awa_test.writes_nothing sees every tuple it wrote, even rolled back.
select * from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', '30 seconds', '2030-01-01 12:00:00+00');
create temp table counts_before as select awa_test.row_counts() as c;

prepare null_ttl as
  select * from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', null, '2030-01-01 12:00:10+00');
-- The code alone, then the message: RAISE renders the NULL as '<NULL>', which
-- is not pinned here (docs/errors.md says messages are lower-case).
select throws_ok('null_ttl', 'AW010', null, 'a NULL ttl raises AW010');
select throws_like('null_ttl', 'awa: lease ttl must be between 1 second and 1 hour, got %', 'the message says the ttl range');
select awa_test.writes_nothing($$select awa_test.attempt('null_ttl')$$, 'a NULL ttl writes nothing');
select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');
select results_eq(
  $$select holder, acquired_at, expires_at from awa.leader_leases where name = 'maintenance'$$,
  $$values ('00000000-0000-0000-0000-0000000000a1'::uuid, '2030-01-01 12:00:00+00'::timestamptz, '2030-01-01 12:00:30+00'::timestamptz)$$,
  'the holder''s lease is not renewed');

select * from finish();
rollback;
