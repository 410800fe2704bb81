-- awa.jobs reports attempt, run_lease, errors and timestamps per state: the
-- running attempt counts, terminal states keep the last attempt's values.
begin;
select plan(2);

-- Fixture: two queues with jobs in every state (pgtap/helpers.sql); fx holds
-- each job's expected state.
select awa_test.state_fixture();

select results_eq(
  $$select fx.name, j.state, j.attempt, j.run_lease, j.errors -> -1 ->> 'error', j.dlq
    from awa.jobs j join fx using (id) order by fx.name$$,
  $$values
    ('qa_available1', 'available'::awa.job_state, 0, 0::bigint, null, false),
    ('qa_available2', 'available', 0, 0, null, false),
    ('qa_cancelled_available', 'cancelled', 0, 0, 'stop', false),
    ('qa_completed', 'completed', 1, 1, null, false),
    ('qa_completed_callback', 'completed', 1, 1, null, false),
    ('qa_dlq', 'failed', 1, 1, 'fatal', true),
    ('qa_retryable', 'retryable', 1, 1, 'oops', false),
    ('qa_running', 'running', 1, 1, null, false),
    ('qa_scheduled', 'scheduled', 0, 0, null, false),
    ('qa_waiting_parked', 'waiting_external', 1, 1, null, false),
    ('qb_available', 'available', 0, 0, null, false),
    ('qb_cancelled_running', 'cancelled', 1, 1, 'stop', false),
    ('qb_cancelled_scheduled', 'cancelled', 0, 0, 'stop', false),
    ('qb_completed1', 'completed', 1, 1, null, false),
    ('qb_completed2', 'completed', 1, 1, null, false),
    ('qb_failed', 'failed', 1, 1, 'fatal', false),
    ('qb_running1', 'running', 1, 1, null, false),
    ('qb_running2', 'running', 1, 1, null, false),
    ('qb_scheduled', 'scheduled', 0, 0, null, false),
    ('qb_waiting', 'waiting_external', 1, 1, null, false)$$,
  'state, attempt, run_lease, last error and dlq flag of every job');

select results_eq(
  $$select fx.name, j.claimed_at, j.finalized_at, j.run_at
    from awa.jobs j join fx using (id)
    where fx.name in ('qa_running', 'qa_completed', 'qa_dlq', 'qa_scheduled', 'qa_available1') order by fx.name$$,
  $$values ('qa_available1', null::timestamptz, null::timestamptz, now()),
           ('qa_completed', null, now(), now()),
           ('qa_dlq', null, now(), now()),
           ('qa_running', now(), null, now()),
           ('qa_scheduled', null, null, now() + interval '1 hour')$$,
  'claimed_at is set for running jobs, finalized_at for finished ones, run_at as scheduled');

select * from finish();
rollback;
