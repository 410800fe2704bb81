-- park_jobs of a registered attempt is applied (state waiting_external): the
-- attempt is closed (closure outcome 'parked', so its worker slot is free and
-- closed_attempts reports it), the registration moves into one
-- awa.external_waits row (token, timeout, the job's body, attempt = the
-- attempts before this one), and the job shows waiting_external, attempt 1.
begin;
select plan(7);

create temp table c as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00', interval '1 hour',
                                                              '{"tags": ["t1"], "metadata": {"m": 1}}');
create temp table before as select awa_test.row_counts() as n;

select results_eq(
  $$select p.job_id, p.run_lease, p.outcome, p.state
    from c, awa.park_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id], '2030-01-01 12:00:05+00') p$$,
  $$select id, run_lease, 'applied'::awa.finalize_outcome, 'waiting_external'::awa.job_state from c$$,
  'the park is applied and the job waits');
select results_eq(
  $$select job_id, callback_id, timeout_at, parked_at, run_lease, attempt, max_attempts, queue, kind, tags, metadata
    from awa.external_waits$$,
  $$select id, callback_id, timeout_at, '2030-01-01 12:00:05+00'::timestamptz, run_lease, 0, 25, 'cb'::text, 'cb.k'::text,
           array['t1'], '{"m": 1}'::jsonb from c$$,
  'one external_waits row holds the token, the timeout and the job''s body');
select is((select count(*) from awa.callbacks), 0::bigint, 'the registration row is gone');
select results_eq($$select outcome from awa.claim_closures$$, $$values ('parked'::text)$$,
                  'the attempt is closed with outcome parked');
select results_eq($$select f.job_id from c, awa.closed_attempts(array[c.id], array[c.run_lease], array[c.claim_slot],
                                                                array[c.receipt_id]) f$$,
                  $$select id from c$$, 'closed_attempts reports the parked attempt closed');
select results_eq($$select state, attempt, run_lease from awa.jobs where id = (select id from c)$$,
                  $$select 'waiting_external'::awa.job_state, 1, run_lease from c$$,
                  'the job shows waiting_external, attempt 1');
select is(awa_test.changed((select n from before), awa_test.row_counts()),
          jsonb_build_object('callbacks', -1, 'external_waits', 1, 'claim_closures_' || awa._current_slot('claim'), 1),
          'the park writes the closure and moves the registration, nothing else');

select * from finish();
rollback;
