-- Cancelling a scheduled job removes it from the deferred backlog and leaves a
-- cancelled snapshot carrying the reason; it is never promoted.
begin;
select plan(6);

create temp table j as
select * from awa.insert_job('cancel.k', '{"a": 1}', jsonb_build_object('queue', 'cq', 'run_at', now() + interval '1 hour'));

select results_eq(
  $$select job_id, run_lease, outcome, state from awa.cancel_job((select id from j), 'changed my mind', now() + interval '1 second')$$,
  $$select id, 0::bigint, 'applied'::awa.finalize_outcome, 'cancelled'::awa.job_state from j$$,
  'cancel_job of a scheduled job is applied and returns cancelled');

select is((select count(*)::int from awa.deferred_jobs where job_id = (select id from j)), 0,
          'the job left the deferred backlog');

select results_eq(
  $$select state, attempt, args, finalized_at from awa.jobs where id = (select id from j)$$,
  $$values ('cancelled'::awa.job_state, 0, '{"a": 1}'::jsonb, now() + interval '1 second')$$,
  'awa.jobs shows the job cancelled, never attempted');

select results_eq(
  $$select errors -> -1 ->> 'error', (errors -> -1 ->> 'attempt')::int from awa.jobs where id = (select id from j)$$,
  $$values ('changed my mind', 0)$$,
  'the reason is recorded in the job''s errors');

select is_empty($$select * from awa.promote_due_jobs(100, now() + interval '2 hours')$$,
                'the cancelled job is never promoted');

select is((select ready_slot from awa.done_entries where job_id = (select id from j)), awa._current_slot('queue'),
          'the snapshot is written in the current queue slot');

select * from finish();
rollback;
