-- An errors array of another length, or NULL / NULL-holding receipt arrays,
-- raise AW010 and write nothing.
begin;
select plan(7);

create temp table claimed as select * from awa_test.claim_one('k', '{}', '{"queue": "flbad"}', '2030-01-01 12:00:00+00');
create temp table counts_before as select awa_test.row_counts() as c;

select t.* from (values
  ($$select * from awa.fail_jobs(array(select id from claimed), array(select run_lease from claimed),
  array(select claim_slot from claimed), array(select receipt_id from claimed), array[]::text[], '2030-01-01 12:00:10+00')$$, 'AW010', 'awa: parallel arrays differ in length (job_ids has 1)', 'an errors array of another length raises AW010', 'an errors array of another length writes nothing'),
  ($$select * from awa.fail_jobs(array(select id from claimed), null,
  array(select claim_slot from claimed), array(select receipt_id from claimed), array['e'], '2030-01-01 12:00:10+00')$$, 'AW010', NULL, 'a NULL run_leases array raises AW010', 'a NULL run_leases array writes nothing'),
  ($$select * from awa.fail_jobs(array(select id from claimed), array(select run_lease from claimed),
  array(select claim_slot from claimed), array[null::bigint], array['e'], '2030-01-01 12:00:10+00')$$, 'AW010', NULL, 'a NULL receipt_id element raises AW010', 'a NULL receipt_id element writes nothing')
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
