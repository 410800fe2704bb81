-- An operator's cancel of the running job closes its attempt: the handler's
-- set_attempt_deadline after it is stale and writes nothing.
begin;
select plan(3);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "sad"}', '2030-01-01 12:00:00+00');
select is((select state from awa.cancel_job((select id from c))), 'cancelled'::awa.job_state, 'the job is cancelled (fixture)');

prepare late as select s.job_id, s.run_lease, s.outcome, s.state, s.deadline_at from c,
  awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id, now() + interval '1 hour') s;
select results_eq('late', $$select id, run_lease, 'stale'::awa.finalize_outcome, null::awa.job_state, null::timestamptz from c$$,
                  'the handler''s deadline after the cancel is stale');
select awa_test.writes_nothing('execute late', 'a stale write writes nothing');

select * from finish();
rollback;
