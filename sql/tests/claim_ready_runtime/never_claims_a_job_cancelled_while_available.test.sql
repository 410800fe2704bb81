-- An available job cancelled by awa.cancel_job (a ready tombstone) is never
-- claimed; its neighbours are.
begin;
select plan(3);

create temp table inserted as
select row_number() over () as ord, * from awa.insert_jobs(array['a', 'b', 'c'], null, array_fill('{"queue": "tomb"}'::jsonb, array[3]));
select * from awa.cancel_job((select id from inserted where ord = 2), 'not needed', '2030-01-01 11:00:00+00');

select results_eq(
  $$select kind from awa.claim_ready_runtime('tomb', 10, null, '2030-01-01 12:00:00+00')$$,
  array['a', 'c'],
  'a claim skips the cancelled job and takes the others in order');
select is((select state from awa.jobs where id = (select id from inserted where ord = 2)), 'cancelled'::awa.job_state,
  'the cancelled job stays cancelled');
select is_empty($$select * from awa.claim_ready_runtime('tomb', 10, null, '2030-01-01 12:00:01+00')$$,
  'the cancelled job is not claimed later either');

select * from finish();
rollback;
