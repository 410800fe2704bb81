-- A ttl below 1 second (zero, a fraction of a second, negative) or above 1
-- hour (2 hours, or 1 hour and a microsecond) raises AW010 naming the ttl and
-- writes nothing, even from the current holder.
begin;
select plan(12);

-- Runs a prepared statement and swallows the awa error (class AW) it raises,
-- so awa_test.writes_nothing sees every tuple it wrote, even rolled back.
select * from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', '30 seconds', '2030-01-01 12:00:00+00');
create temp table counts_before as select awa_test.row_counts() as c;

prepare zero_ttl as
  select * from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', '0', '2030-01-01 12:00:10+00');
select throws_ok('zero_ttl', 'AW010', 'awa: lease ttl must be between 1 second and 1 hour, got 00:00:00', 'a zero ttl raises AW010');
select awa_test.writes_nothing($$select awa_test.attempt('zero_ttl')$$, 'a zero ttl writes nothing');

prepare subsecond_ttl as
  select * from awa.acquire_leader_lease('other', '00000000-0000-0000-0000-0000000000b1', '999 milliseconds', '2030-01-01 12:00:10+00');
select throws_ok('subsecond_ttl', 'AW010', 'awa: lease ttl must be between 1 second and 1 hour, got 00:00:00.999',
  'a ttl of 999 ms raises AW010');
select awa_test.writes_nothing($$select awa_test.attempt('subsecond_ttl')$$, 'a ttl of 999 ms writes nothing');

prepare negative_ttl as
  select * from awa.acquire_leader_lease('other', '00000000-0000-0000-0000-0000000000b1', '-30 seconds', '2030-01-01 12:00:10+00');
select throws_ok('negative_ttl', 'AW010', 'awa: lease ttl must be between 1 second and 1 hour, got -00:00:30',
  'a negative ttl raises AW010');
select awa_test.writes_nothing($$select awa_test.attempt('negative_ttl')$$, 'a negative ttl writes nothing');

prepare two_hours as
  select * from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', '2 hours', '2030-01-01 12:00:10+00');
select throws_ok('two_hours', 'AW010', 'awa: lease ttl must be between 1 second and 1 hour, got 02:00:00', 'a ttl of 2 hours raises AW010');
select awa_test.writes_nothing($$select awa_test.attempt('two_hours')$$, 'a ttl of 2 hours writes nothing');

prepare just_over as
  select * from awa.acquire_leader_lease('other', '00000000-0000-0000-0000-0000000000b1', '1 hour 0.000001 seconds', '2030-01-01 12:00:10+00');
select throws_ok('just_over', 'AW010', 'awa: lease ttl must be between 1 second and 1 hour, got 01:00:00.000001',
  'a ttl one microsecond over 1 hour raises AW010');
select awa_test.writes_nothing($$select awa_test.attempt('just_over')$$, 'a ttl one microsecond over 1 hour writes nothing');

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');
select results_eq(
  $$select name, holder, acquired_at, expires_at from awa.leader_leases$$,
  $$values ('maintenance'::text, '00000000-0000-0000-0000-0000000000a1'::uuid,
            '2030-01-01 12:00:00+00'::timestamptz, '2030-01-01 12:00:30+00'::timestamptz)$$,
  'the holder''s lease is not renewed and no other lease exists');

select * from finish();
rollback;
