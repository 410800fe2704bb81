-- A NULL holder raises AW010 and writes nothing; the lease is kept.
begin;
select plan(4);

select * from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', '30 seconds', '2030-01-01 12:00:00+00');
create temp table counts_before as select awa_test.row_counts() as c;

select * from awa_test.raises_writing_nothing($$select * from awa.release_leader_lease('maintenance', null)$$,
  'AW010', 'awa: lease name and holder must not be null', 'a NULL holder raises AW010', 'a NULL holder writes nothing');
select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');
select results_eq(
  $$select name, holder from awa.leader_leases$$,
  $$values ('maintenance'::text, '00000000-0000-0000-0000-0000000000a1'::uuid)$$,
  'the lease is kept');

select * from finish();
rollback;
