-- One completion call over jobs of two queues and two ready slots writes one
-- done_completions row per (ready slot, queue) and completes them all.
begin;
select plan(3);

select * from awa.insert_job('a0', '{}', '{"queue": "cq_a"}');
select * from awa.insert_job('b0', '{}', '{"queue": "cq_b"}');
select is((select outcome from awa.rotate_ring('queue', '2030-01-01 11:00:00+00')), 'rotated', 'setup: the queue ring rotates');
select * from awa.insert_job('a1', '{}', '{"queue": "cq_a"}');

create temp table claimed as
select * from awa.claim_ready_runtime('cq_a', 10, null, '2030-01-01 12:00:00+00')
union all
select * from awa.claim_ready_runtime('cq_b', 10, null, '2030-01-01 12:00:00+00');

select results_eq(
  $$select state, count(*) from awa.complete_jobs(array(select id from claimed), array(select run_lease from claimed),
      array(select claim_slot from claimed), array(select receipt_id from claimed), '2030-01-01 12:00:05+00') group by state$$,
  $$values ('completed'::awa.job_state, 3::bigint)$$,
  'all three jobs complete');
select results_eq(
  $$select queue, ready_slot, cardinality(job_ids) from awa.done_completions
    where queue in ('cq_a', 'cq_b') order by queue, ready_slot$$,
  $$values ('cq_a', 0, 1), ('cq_a', 1, 1), ('cq_b', 0, 1)$$,
  'one completion row per queue and ready slot');

select * from finish();
rollback;
