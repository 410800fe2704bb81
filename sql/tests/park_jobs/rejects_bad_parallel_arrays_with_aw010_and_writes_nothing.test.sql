-- park_jobs checks its parallel arrays as every finalizer: a NULL array or
-- element, or arrays of different lengths, raise AW010 and write nothing.
begin;
select plan(7);

create temp table c as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00');
create temp table before as select awa_test.row_counts() as n;

select t.* from (values
  ($$select * from awa.park_jobs(null, array[(select run_lease from c)], array[(select claim_slot from c)], array[(select receipt_id from c)])$$,
   'AW010', 'awa: job_ids, run_leases, claim_slots and receipt_ids must not be null', 'a NULL job_ids array raises AW010'),
  ($$select * from awa.park_jobs(array[(select id from c)], array[(select run_lease from c), 1], array[(select claim_slot from c)], array[(select receipt_id from c)])$$,
   'AW010', 'awa: parallel arrays differ in length (job_ids has 1)', 'arrays of different lengths raise AW010'),
  ($$select * from awa.park_jobs(array[(select id from c)], array[(select run_lease from c)], array[(select claim_slot from c)], array[null::bigint])$$,
   'AW010', 'awa: job_ids, run_leases, claim_slots and receipt_ids must not hold nulls', 'a NULL receipt id raises AW010')
) as v (call, sqlstate, message, raises)
cross join lateral awa_test.raises_writing_nothing(v.call, v.sqlstate, v.message, v.raises) t;
select is(awa_test.row_counts(), (select n from before), 'no awa table gained or lost a row');

select * from finish();
rollback;
