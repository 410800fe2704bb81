-- errors and retry_at, when given, must be as long as job_ids; the receipt
-- arrays must be non-NULL and hold no NULLs: otherwise AW010, nothing written.
begin;
select plan(9);

create temp table claimed as select * from awa_test.claim_one('k', '{}', '{"queue": "rtbad"}', '2030-01-01 12:00:00+00');
create temp table counts_before as select awa_test.row_counts() as c;

select t.* from (values
  ($$select * from awa.retry_jobs(array(select id from claimed), array(select run_lease from claimed),
  array(select claim_slot from claimed), array(select receipt_id from claimed), array['e1', 'e2'], null, '2030-01-01 12:00:10+00')$$, 'AW010', 'awa: parallel arrays differ in length (job_ids has 1)', 'an errors array of another length raises AW010', 'an errors array of another length writes nothing'),
  ($$select * from awa.retry_jobs(array(select id from claimed), array(select run_lease from claimed),
  array(select claim_slot from claimed), array(select receipt_id from claimed), array['e'],
  array['2030-01-01 13:00:00+00', '2030-01-01 14:00:00+00']::timestamptz[], '2030-01-01 12:00:10+00')$$, 'AW010', NULL, 'a retry_at array of another length raises AW010', 'a retry_at array of another length writes nothing'),
  ($$select * from awa.retry_jobs(array(select id from claimed), array(select run_lease from claimed),
  array(select claim_slot from claimed), null, array['e'], null, '2030-01-01 12:00:10+00')$$, 'AW010', NULL, 'a NULL receipt_ids array raises AW010', 'a NULL receipt_ids array writes nothing'),
  ($$select * from awa.retry_jobs(array(select id from claimed), array[null::bigint],
  array(select claim_slot from claimed), array(select receipt_id from claimed), array['e'], null, '2030-01-01 12:00:10+00')$$, 'AW010', NULL, 'a NULL run_lease element raises AW010', 'a NULL run_lease element writes nothing')
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
