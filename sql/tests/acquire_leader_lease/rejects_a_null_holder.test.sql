-- A NULL holder raises AW010 and writes nothing, whether the lease is free
-- or held.
begin;
select plan(6);

select awa_test.held_lease();
create temp table counts_before as select awa_test.row_counts() as c;

select * from awa_test.raises_writing_nothing($$select * from awa.acquire_leader_lease('free', null, '30 seconds', '2030-01-01 12:00:10+00')$$,
  'AW010', 'awa: lease name and holder must not be null',
  'a NULL holder for a free lease raises AW010', 'a NULL holder for a free lease writes nothing');

-- Past the expiry of the held lease, so a valid holder would take it.
select * from awa_test.raises_writing_nothing($$select * from awa.acquire_leader_lease('maintenance', null, '30 seconds', '2030-01-01 12:05:00+00')$$,
  'AW010', 'awa: lease name and holder must not be null',
  'a NULL holder for an expired lease raises AW010', 'a NULL holder for an expired lease writes nothing');

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');
select awa_test.only_the_held_lease('the existing lease is unchanged');

select * from finish();
rollback;
