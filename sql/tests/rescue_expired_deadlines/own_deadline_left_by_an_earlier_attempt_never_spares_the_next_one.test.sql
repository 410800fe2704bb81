-- An attempt that set an own deadline far ahead and then ended otherwise (its
-- worker retried it) leaves that deadline in its job's attempt_state row.
-- The job's next attempt, with a shorter claim deadline and none of its own,
-- is rescued at its claim's deadline: the old row does not spare it (it names
-- the old attempt), and the old deadline, when it comes due, only reports
-- the old attempt stale.
begin;
select plan(4);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "red_left"}', '2030-01-01 12:00:00+00');
select outcome from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id, '2030-01-01 15:00:00+00',
                                                '2030-01-01 12:00:02+00');
select outcome from c, awa.retry_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id],
                                      array['boom'], array['2030-01-01 12:00:03+00'::timestamptz], '2030-01-01 12:00:03+00');
select count(*) from awa.promote_due_jobs(1000, '2030-01-01 12:00:04+00');
create temp table c2 as
select * from awa.claim_ready_runtime('red_left', 1, null, '2030-01-01 12:00:05+00', p_attempt_deadline => interval '10 minutes');
select is((select run_lease from c2), (select run_lease + 1 from c), 'the job runs again (fixture)');

select is_empty($$select * from awa.rescue_expired_deadlines(1000, '2030-01-01 12:10:00+00')$$,
                'nothing is rescued before the new claim''s deadline');
select results_eq($$select job_id, run_lease, outcome from awa.rescue_expired_deadlines(1000, '2030-01-01 12:11:00+00')$$,
                  $$select id, run_lease, 'applied'::awa.finalize_outcome from c2$$,
                  'the running attempt is rescued at its claim''s deadline, not spared by the old attempt''s');
select results_eq($$select job_id, run_lease, outcome from awa.rescue_expired_deadlines(1000, '2030-01-01 15:01:00+00')$$,
                  $$select id, run_lease, 'stale'::awa.finalize_outcome from c$$,
                  'the old deadline, when due, reports the old attempt stale');

select * from finish();
rollback;
