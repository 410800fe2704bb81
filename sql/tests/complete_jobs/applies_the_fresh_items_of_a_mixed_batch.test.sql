-- A call mixing open attempts and stale items applies the open ones and
-- reports the others stale, one result per item.
begin;
select plan(4);

select * from awa.insert_jobs(array['a', 'b', 'c'], null, array_fill('{"queue": "mix"}'::jsonb, array[3]));
create temp table claimed as select row_number() over () as ord, * from awa.claim_ready_runtime('mix', 3, null, '2030-01-01 12:00:00+00');
-- b is finished first, so it is stale in the mixed call; c gets a wrong run_lease.
select * from awa.complete_jobs(
  array(select id from claimed where ord = 2), array(select run_lease from claimed where ord = 2),
  array(select claim_slot from claimed where ord = 2), array(select receipt_id from claimed where ord = 2),
  '2030-01-01 12:00:01+00');

create temp table results as
select * from awa.complete_jobs(
  array(select id from claimed order by ord),
  array(select case when ord = 3 then run_lease + 7 else run_lease end from claimed order by ord),
  array(select claim_slot from claimed order by ord), array(select receipt_id from claimed order by ord),
  '2030-01-01 12:00:05+00');

select is((select count(*) from results), 3::bigint, 'one result per item');
select bag_eq(
  $$select job_id, outcome, state from results$$,
  $$select id, case when ord = 1 then 'applied' else 'stale' end::awa.finalize_outcome,
           case when ord = 1 then 'completed'::awa.job_state end from claimed$$,
  'the open attempt is applied, the finished one and the wrong lease are stale');
select results_eq(
  $$select j.state, j.finalized_at from awa.jobs j join claimed c on c.id = j.id order by c.ord$$,
  $$values ('completed'::awa.job_state, '2030-01-01 12:00:05+00'::timestamptz),
           ('completed'::awa.job_state, '2030-01-01 12:00:01+00'::timestamptz),
           ('running'::awa.job_state, null::timestamptz)$$,
  'a is completed by the mixed call, b keeps its first completion, c is still running');
select is((select sum(cardinality(job_ids)) from awa.done_completions where queue = 'mix'), 2::bigint,
  'completion history holds each completed job once');

select * from finish();
rollback;
