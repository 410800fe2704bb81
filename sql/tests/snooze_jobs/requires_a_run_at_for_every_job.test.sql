-- Every snoozed job needs a run_at: a NULL run_at array or a NULL element
-- raises AW010 and writes nothing (not even for the jobs that have one).
begin;
select plan(9);

select * from awa.insert_jobs(array['a', 'b'], null, array_fill('{"queue": "snbad"}'::jsonb, array[2]));
create temp table claimed as select row_number() over () as ord, * from awa.claim_ready_runtime('snbad', 2, null, '2030-01-01 12:00:00+00');
create temp table counts_before as select awa_test.row_counts() as c;

select t.* from (values
  ($$select * from awa.snooze_jobs(array(select id from claimed order by ord),
  array(select run_lease from claimed order by ord), array(select claim_slot from claimed order by ord),
  array(select receipt_id from claimed order by ord), null, '2030-01-01 12:00:10+00')$$, 'AW010', 'awa: snooze needs a run_at for every job', 'a NULL run_at array raises AW010', 'a NULL run_at array writes nothing'),
  ($$select * from awa.snooze_jobs(array(select id from claimed order by ord),
  array(select run_lease from claimed order by ord), array(select claim_slot from claimed order by ord),
  array(select receipt_id from claimed order by ord), array['2030-01-01 13:00:00+00', null]::timestamptz[], '2030-01-01 12:00:10+00')$$, 'AW010', 'awa: snooze needs a run_at for every job', 'a NULL run_at element raises AW010', 'a NULL run_at element writes nothing, not even for the job with a run_at'),
  ($$select * from awa.snooze_jobs(array(select id from claimed order by ord),
  array(select run_lease from claimed order by ord), array(select claim_slot from claimed order by ord),
  array(select receipt_id from claimed order by ord), array['2030-01-01 13:00:00+00']::timestamptz[], '2030-01-01 12:00:10+00')$$, 'AW010', NULL, 'a run_at array shorter than job_ids raises AW010', 'a short run_at array writes nothing'),
  ($$select * from awa.snooze_jobs(null, array(select run_lease from claimed order by ord),
  array(select claim_slot from claimed order by ord), array(select receipt_id from claimed order by ord),
  array['2030-01-01 13:00:00+00', '2030-01-01 13:00:00+00']::timestamptz[], '2030-01-01 12:00:10+00')$$, 'AW010', NULL, 'a NULL job_ids array raises AW010', 'a NULL job_ids array writes nothing')
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
