-- Cancelling one running job of a multi-job claim batch closes only its own
-- receipt: the other jobs of the batch keep running and complete normally.
begin;
select plan(3);

select * from awa.insert_jobs(array['cancel.k', 'cancel.k', 'cancel.k'], null,
                              array['{"queue": "cq"}', '{"queue": "cq"}', '{"queue": "cq"}']::jsonb[]);
create temp table c as select * from awa.claim_ready_runtime('cq', 3, null, now());
create temp table victim as select * from c order by receipt_id offset 1 limit 1;

select results_eq($$select job_id, outcome, state from awa.cancel_job((select id from victim), null, now())$$,
                  $$select id, 'applied'::awa.finalize_outcome, 'cancelled'::awa.job_state from victim$$,
                  'the middle job of the batch is cancelled');

select bag_eq($$select id, state from awa.jobs$$,
              $$select id, case when id = (select id from victim) then 'cancelled' else 'running' end::awa.job_state as state from c$$,
              'the other two jobs of the batch are still running');

select bag_eq(
  $$select job_id, outcome from awa.complete_jobs((select array_agg(id order by receipt_id) from c),
                                                  (select array_agg(run_lease order by receipt_id) from c),
                                                  (select array_agg(claim_slot order by receipt_id) from c),
                                                  (select array_agg(receipt_id order by receipt_id) from c), now())$$,
  $$select id, case when id = (select id from victim) then 'stale' else 'applied' end::awa.finalize_outcome as outcome from c$$,
  'completing the whole batch applies to the two running jobs and is stale for the cancelled one');

select * from finish();
rollback;
