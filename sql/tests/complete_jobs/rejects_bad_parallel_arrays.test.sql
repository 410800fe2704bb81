-- The four parallel arrays are required, of one length and without NULLs:
-- otherwise AW010 and nothing is written (not even for the valid items).
begin;
select plan(17);

select * from awa.insert_jobs(array['a', 'b'], null, array_fill('{"queue": "badarr"}'::jsonb, array[2]));
create temp table claimed as select row_number() over () as ord, * from awa.claim_ready_runtime('badarr', 2, null, '2030-01-01 12:00:00+00');
create temp table counts_before as select awa_test.row_counts() as c;

select t.* from (values
  ($$select * from awa.complete_jobs(null, array(select run_lease from claimed order by ord),
  array(select claim_slot from claimed order by ord), array(select receipt_id from claimed order by ord), '2030-01-01 12:00:05+00')$$, 'AW010', 'awa: job_ids, run_leases, claim_slots and receipt_ids must not be null', 'a NULL job_ids array raises AW010', 'a NULL job_ids array writes nothing'),
  ($$select * from awa.complete_jobs(array(select id from claimed order by ord), null,
  array(select claim_slot from claimed order by ord), array(select receipt_id from claimed order by ord), '2030-01-01 12:00:05+00')$$, 'AW010', NULL, 'a NULL run_leases array raises AW010', 'a NULL run_leases array writes nothing'),
  ($$select * from awa.complete_jobs(array(select id from claimed order by ord),
  array(select run_lease from claimed order by ord), null, array(select receipt_id from claimed order by ord), '2030-01-01 12:00:05+00')$$, 'AW010', NULL, 'a NULL claim_slots array raises AW010', 'a NULL claim_slots array writes nothing'),
  ($$select * from awa.complete_jobs(array(select id from claimed order by ord),
  array(select run_lease from claimed order by ord), array(select claim_slot from claimed order by ord), null, '2030-01-01 12:00:05+00')$$, 'AW010', NULL, 'a NULL receipt_ids array raises AW010', 'a NULL receipt_ids array writes nothing'),
  ($$select * from awa.complete_jobs(array(select id from claimed order by ord),
  array(select run_lease from claimed where ord = 1), array(select claim_slot from claimed order by ord),
  array(select receipt_id from claimed order by ord), '2030-01-01 12:00:05+00')$$, 'AW010', 'awa: parallel arrays differ in length (job_ids has 2)', 'arrays of different lengths raise AW010', 'arrays of different lengths write nothing'),
  ($$select * from awa.complete_jobs(array(select id from claimed order by ord),
  array(select run_lease from claimed order by ord), array(select claim_slot from claimed order by ord),
  array(select receipt_id from claimed order by ord) || 0::bigint, '2030-01-01 12:00:05+00')$$, 'AW010', NULL, 'a longer receipt_ids array raises AW010', 'a longer receipt_ids array writes nothing'),
  ($$select * from awa.complete_jobs(array(select id from claimed order by ord),
  array(select run_lease from claimed order by ord), array(select claim_slot from claimed order by ord),
  array(select case when ord = 2 then null else receipt_id end from claimed order by ord), '2030-01-01 12:00:05+00')$$, 'AW010', 'awa: job_ids, run_leases, claim_slots and receipt_ids must not hold nulls', 'a NULL element raises AW010', 'a NULL element writes nothing, not even for the valid item'),
  ($$select * from awa.complete_jobs(array[(select id from claimed where ord = 1), null],
  array(select run_lease from claimed order by ord), array(select claim_slot from claimed order by ord),
  array(select receipt_id from claimed order by ord), '2030-01-01 12:00:05+00')$$, 'AW010', NULL, 'a NULL job id raises AW010', 'a NULL job id writes nothing')
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
