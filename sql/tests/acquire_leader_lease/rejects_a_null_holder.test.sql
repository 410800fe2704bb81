-- A NULL holder raises AW010 and writes nothing, whether the lease is free
-- or held.
begin;
select plan(6);

-- Runs a prepared statement and swallows the awa error (class AW) it raises,
-- so awa_test.writes_nothing sees every tuple it wrote, even rolled back.
select * from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', '30 seconds', '2030-01-01 12:00:00+00');
create temp table counts_before as select awa_test.row_counts() as c;

prepare null_holder_free as
  select * from awa.acquire_leader_lease('free', null, '30 seconds', '2030-01-01 12:00:10+00');
select throws_ok('null_holder_free', 'AW010', 'awa: lease name and holder must not be null',
  'a NULL holder for a free lease raises AW010');
select awa_test.writes_nothing($$select awa_test.attempt('null_holder_free')$$, 'a NULL holder for a free lease writes nothing');

-- Past the expiry of the held lease, so a valid holder would take it.
prepare null_holder_expired as
  select * from awa.acquire_leader_lease('maintenance', null, '30 seconds', '2030-01-01 12:05:00+00');
select throws_ok('null_holder_expired', 'AW010', 'awa: lease name and holder must not be null',
  'a NULL holder for an expired lease raises AW010');
select awa_test.writes_nothing($$select awa_test.attempt('null_holder_expired')$$, 'a NULL holder for an expired lease writes nothing');

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');
select results_eq(
  $$select name, holder, acquired_at, expires_at from awa.leader_leases$$,
  $$values ('maintenance'::text, '00000000-0000-0000-0000-0000000000a1'::uuid,
            '2030-01-01 12:00:00+00'::timestamptz, '2030-01-01 12:00:30+00'::timestamptz)$$,
  'the existing lease is unchanged');

select * from finish();
rollback;
