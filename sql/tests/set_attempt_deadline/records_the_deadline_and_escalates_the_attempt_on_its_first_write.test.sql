-- The first set_attempt_deadline of an open attempt is applied (state
-- running, the deadline asked for): it escalates the attempt to a lease (one
-- awa.leases row in the current lease slot naming the attempt and its
-- receipt) and records the deadline, with the attempt and its receipt, in the
-- job's awa.attempt_state row, which holds no checkpoint; nothing else.
begin;
select plan(6);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "sad"}', '2030-01-01 12:00:00+00');
create temp table before as select awa_test.row_counts() as n;

select results_eq(
  $$select s.job_id, s.run_lease, s.outcome, s.state, s.deadline_at
    from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id, '2030-01-01 15:00:00+00',
                                     '2030-01-01 12:00:01+00') s$$,
  $$select id, run_lease, 'applied'::awa.finalize_outcome, 'running'::awa.job_state,
           '2030-01-01 15:00:00+00'::timestamptz from c$$,
  'the write is applied with the deadline asked for, and the job is running');
select results_eq(
  $$select lease_slot, job_id, run_lease, claim_slot, receipt_id, queue, created_at from awa.leases$$,
  $$select awa._current_slot('lease'), id, run_lease, claim_slot, receipt_id, 'sad'::text,
           '2030-01-01 12:00:01+00'::timestamptz from c$$,
  'one lease row names the attempt and its receipt, in the current lease slot');
select results_eq(
  $$select job_id, run_lease, progress, updated_at, deadline_at, deadline_run_lease, deadline_claim_slot,
           deadline_receipt_id from awa.attempt_state$$,
  $$select id, run_lease, null::jsonb, null::timestamptz, '2030-01-01 15:00:00+00'::timestamptz, run_lease, claim_slot,
           receipt_id from c$$,
  'the job''s attempt_state row holds the deadline, the attempt and its receipt, and no checkpoint');
select is(awa_test.changed((select n from before), awa_test.row_counts()),
          jsonb_build_object('leases_' || awa._current_slot('lease'), 1, 'attempt_state', 1),
          'nothing but the lease and the attempt_state row is written');
select is_empty($$select * from awa.job_progress((select id from c))$$, 'a deadline is no progress checkpoint');
select results_eq($$select state, progress from awa.jobs where id = (select id from c)$$,
                  $$values ('running'::awa.job_state, null::jsonb)$$, 'the job is still running, with no progress');

select * from finish();
rollback;
