-- A NULL holder raises AW010 and writes nothing; the lease is kept.
begin;
select plan(4);

select awa_test.held_lease();
create temp table counts_before as select awa_test.row_counts() as c;

select * from awa_test.raises_writing_nothing($$select * from awa.release_leader_lease('maintenance', null)$$,
  'AW010', 'awa: lease name and holder must not be null', 'a NULL holder raises AW010', 'a NULL holder writes nothing');
select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');
select awa_test.only_the_held_lease('the lease is kept');

select * from finish();
rollback;
