-- A NULL lease name raises AW010 and writes nothing.
begin;
select plan(4);

select awa_test.held_lease();
create temp table counts_before as select awa_test.row_counts() as c;

select * from awa_test.raises_writing_nothing($$select * from awa.acquire_leader_lease(null, '00000000-0000-0000-0000-0000000000a1', '30 seconds', '2030-01-01 12:00:10+00')$$,
  'AW010', 'awa: lease name and holder must not be null', 'a NULL name raises AW010', 'a NULL name writes nothing');
select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');
select awa_test.only_the_held_lease('the existing lease is unchanged');

select * from finish();
rollback;
