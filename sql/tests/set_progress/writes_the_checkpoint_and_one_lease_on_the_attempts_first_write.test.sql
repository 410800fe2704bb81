-- The first set_progress of an open attempt is applied (state running): it
-- escalates the attempt to a lease (one awa.leases row in the current lease
-- slot naming the attempt and its receipt) and writes the job's checkpoint
-- into awa.attempt_state, and nothing else.
begin;
select plan(5);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "sp"}', '2030-01-01 12:00:00+00');
create temp table before as select awa_test.row_counts() as n;

select results_eq(
  $$select s.job_id, s.run_lease, s.outcome, s.state from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id,
                                                                       '{"step": 1}', '2030-01-01 12:00:01+00') s$$,
  $$select id, run_lease, 'applied'::awa.finalize_outcome, 'running'::awa.job_state from c$$,
  'the write is applied and the job is running');
select results_eq(
  $$select lease_slot, job_id, run_lease, claim_slot, receipt_id, queue, created_at from awa.leases$$,
  $$select awa._current_slot('lease'), id, run_lease, claim_slot, receipt_id, 'sp'::text,
           '2030-01-01 12:00:01+00'::timestamptz from c$$,
  'one lease row names the attempt and its receipt, in the current lease slot');
select results_eq(
  $$select job_id, run_lease, progress, updated_at from awa.attempt_state$$,
  $$select id, run_lease, '{"step": 1}'::jsonb, '2030-01-01 12:00:01+00'::timestamptz from c$$,
  'the checkpoint is the job''s attempt_state row');
select is(awa_test.changed((select n from before), awa_test.row_counts()),
          jsonb_build_object('leases_' || awa._current_slot('lease'), 1, 'attempt_state', 1),
          'nothing but the lease and the checkpoint is written');
select is((select state from awa.jobs where id = (select id from c)), 'running'::awa.job_state,
          'the job is still running');

select * from finish();
rollback;
