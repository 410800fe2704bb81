-- A cancel without a reason (NULL reasons array or NULL element) cancels the
-- job and appends nothing to its errors.
begin;
select plan(3);

select * from awa.insert_jobs(array['a', 'b'], null, array_fill('{"queue": "cnr"}'::jsonb, array[2]));
create temp table claimed as select row_number() over () as ord, * from awa.claim_ready_runtime('cnr', 2, null, '2030-01-01 12:00:00+00');

select results_eq(
  $$select state from awa.cancel_jobs(array(select id from claimed where ord = 1), array(select run_lease from claimed where ord = 1),
      array(select claim_slot from claimed where ord = 1), array(select receipt_id from claimed where ord = 1), null, '2030-01-01 12:00:10+00')$$,
  $$values ('cancelled'::awa.job_state)$$, 'a cancel with no reasons array is applied');
select * from awa.cancel_jobs(array(select id from claimed where ord = 2), array(select run_lease from claimed where ord = 2),
  array(select claim_slot from claimed where ord = 2), array(select receipt_id from claimed where ord = 2), array[null::text],
  '2030-01-01 12:00:10+00');
select results_eq($$select j.state, j.errors from awa.jobs j join claimed c on c.id = j.id order by c.ord$$,
  $$values ('cancelled'::awa.job_state, null::jsonb), ('cancelled'::awa.job_state, null::jsonb)$$,
  'both jobs are cancelled and their errors stay empty');
select is((select count(*) from awa.jobs where queue = 'cnr'), 2::bigint, 'awa.jobs shows each job once');

select * from finish();
rollback;
