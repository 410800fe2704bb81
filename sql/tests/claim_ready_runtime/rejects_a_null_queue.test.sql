-- A NULL queue raises AW002 and writes nothing.
begin;
select plan(3);

select * from awa.insert_job('k');
create temp table counts_before as select awa_test.row_counts() as c;

select * from awa_test.raises_writing_nothing($$select * from awa.claim_ready_runtime(null, 1, null, '2030-01-01 12:00:00+00')$$,
  'AW002', 'awa: queue must not be null', 'a NULL queue raises AW002', 'a NULL queue writes nothing');
select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
