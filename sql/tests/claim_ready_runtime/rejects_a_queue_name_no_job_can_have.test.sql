-- A queue name no insert accepts (empty, a space, a character outside
-- [A-Za-z0-9_.:-], 51 characters) raises AW002 and writes nothing: such a
-- claim could never find a job.
begin;
select plan(8);

select * from awa.insert_job('k');
create temp table counts_before as select awa_test.row_counts() as c;

select * from awa_test.raises_writing_nothing($$select * from awa.claim_ready_runtime('', 1)$$,
  'AW002', $$awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''$$,
  'an empty queue name raises AW002');
select * from awa_test.raises_writing_nothing($$select * from awa.claim_ready_runtime('mail ', 1)$$,
  'AW002', $$awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got 'mail '$$,
  'a queue name with a space raises AW002');
select * from awa_test.raises_writing_nothing($$select * from awa.claim_ready_runtime(repeat('a', 51), 1)$$,
  'AW002', null, 'a queue name of 51 characters raises AW002');
select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');
select is((select count(*) from awa.claim_ready_runtime('not_yet_created', 1)), 0::bigint,
          'a valid name of a queue that holds nothing is no error');

select * from finish();
rollback;
