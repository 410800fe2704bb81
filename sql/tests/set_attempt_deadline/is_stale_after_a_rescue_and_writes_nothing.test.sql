-- Once a rescue has closed the attempt (its claim's deadline passed, or its
-- process is gone), the old worker's set_attempt_deadline is stale and writes
-- nothing: a deadline cannot bring a closed attempt back.
begin;
select plan(6);

select * from awa.configure_queue('sad_dq', '{"deadline_seconds": 60}');
create temp table d as select * from awa_test.claim_one('k', '{}', '{"queue": "sad_dq"}', '2030-01-01 12:00:00+00');
create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "sad"}', '2030-01-01 12:00:00+00');
select results_eq($$select job_id, outcome from awa.rescue_expired_deadlines(10, '2030-01-01 12:02:00+00')$$,
                  $$select id, 'applied'::awa.finalize_outcome from d$$,
                  'the deadline rescue closes the attempt past its claim''s deadline (fixture)');
select results_eq($$select job_id, outcome from awa.rescue_stale_claims(interval '90 seconds', 10, '2030-01-01 12:10:00+00')$$,
                  $$select id, 'applied'::awa.finalize_outcome from c$$,
                  'the stale rescue closes the other attempt (fixture)');

prepare late_d as select s.job_id, s.run_lease, s.outcome, s.state, s.deadline_at from d,
  awa.set_attempt_deadline(d.id, d.run_lease, d.claim_slot, d.receipt_id, '2030-01-01 13:00:00+00', '2030-01-01 12:10:01+00') s;
prepare late_c as select s.job_id, s.run_lease, s.outcome, s.state, s.deadline_at from c,
  awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id, '2030-01-01 13:00:00+00', '2030-01-01 12:10:01+00') s;
select results_eq('late_d', $$select id, run_lease, 'stale'::awa.finalize_outcome, null::awa.job_state, null::timestamptz from d$$,
                  'a deadline after the deadline rescue is stale');
select awa_test.writes_nothing('execute late_d', 'it writes nothing');
select results_eq('late_c', $$select id, run_lease, 'stale'::awa.finalize_outcome, null::awa.job_state, null::timestamptz from c$$,
                  'a deadline after the stale rescue is stale');
select awa_test.writes_nothing('execute late_c', 'it writes nothing either');

select * from finish();
rollback;
