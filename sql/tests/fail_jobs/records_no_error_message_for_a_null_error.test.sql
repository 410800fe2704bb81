-- A NULL errors array (or element) still records the failure, as
-- 'no error message'.
begin;
select plan(2);

create temp table claimed as select * from awa_test.claim_one('k', '{}', '{"queue": "flnull"}', '2030-01-01 12:00:00+00');
select results_eq(
  $$select state from awa.fail_jobs(array(select id from claimed), array(select run_lease from claimed),
      array(select claim_slot from claimed), array(select receipt_id from claimed), null, '2030-01-01 12:00:10+00')$$,
  $$values ('failed'::awa.job_state)$$, 'a fail without errors array is applied');
select is((select errors from awa.jobs where id = (select id from claimed)),
  '[{"attempt": 1, "at": "2030-01-01T12:00:10+00:00", "error": "no error message"}]'::jsonb,
  'the failure is recorded as no error message');

select * from finish();
rollback;
