-- A claim batch of three expired jobs, one completed and one cancelled by
-- separate finalizer calls: only the third, still open, is rescued; fully
-- closed expired batches are skipped.
begin;
select plan(3);

select * from awa.configure_queue('pq', '{"deadline_seconds": 5}');
select * from awa.insert_jobs(array['k', 'k', 'k'], array['{}', '{}', '{}']::jsonb[],
                              array['{"queue": "pq"}', '{"queue": "pq"}', '{"queue": "pq"}']::jsonb[]);
select * from awa.insert_job('k', '{}', '{"queue": "pq"}');
create temp table c as select row_number() over () as ord, * from awa.claim_ready_runtime('pq', 3, null, now());
create temp table done as select * from awa.claim_ready_runtime('pq', 1, null, now());

select * from awa.complete_jobs(array[(select id from c where ord = 1)], array[(select run_lease from c where ord = 1)],
                                array[(select claim_slot from c where ord = 1)], array[(select receipt_id from c where ord = 1)]);
select * from awa.cancel_jobs(array[(select id from c where ord = 2)], array[(select run_lease from c where ord = 2)],
                              array[(select claim_slot from c where ord = 2)], array[(select receipt_id from c where ord = 2)]);
select * from awa.complete_jobs(array[(select id from done)], array[(select run_lease from done)],
                                array[(select claim_slot from done)], array[(select receipt_id from done)]);

select results_eq(
  $$select job_id, outcome from awa.rescue_expired_deadlines(1000, now() + interval '1 minute')$$,
  $$select id, 'applied'::awa.finalize_outcome from c where ord = 3$$,
  'only the open item of the batch is rescued');
select results_eq(
  $$select id, state from awa.jobs where queue = 'pq' order by id$$,
  $$select * from (values ((select id from c where ord = 1), 'completed'::awa.job_state),
                          ((select id from c where ord = 2), 'cancelled'::awa.job_state),
                          ((select id from c where ord = 3), 'retryable'::awa.job_state),
                          ((select id from done), 'completed'::awa.job_state)) v order by 1$$,
  'the finalized jobs keep their outcome; the open one is retryable');
select is_empty($$select * from awa.rescue_expired_deadlines(1000, now() + interval '1 minute')$$,
                'a second rescue finds nothing open');

select * from finish();
rollback;
