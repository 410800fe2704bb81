-- An operator's cancel of the running job closes its attempt: the handler's
-- set_progress after it is stale and writes nothing; the checkpoint stays.
begin;
select plan(4);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "sp"}', '2030-01-01 12:00:00+00');
select outcome from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 1}', '2030-01-01 12:00:01+00');
select is((select state from awa.cancel_job((select id from c))), 'cancelled'::awa.job_state, 'the job is cancelled (fixture)');

prepare late as select s.job_id, s.run_lease, s.outcome, s.state from c,
  awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 2}', '2030-01-01 12:00:02+00') s;
select results_eq('late', $$select id, run_lease, 'stale'::awa.finalize_outcome, null::awa.job_state from c$$,
                  'the handler''s write after the cancel is stale');
select awa_test.writes_nothing('execute late', 'a stale write writes nothing');
select is((select progress from awa.job_progress((select id from c))), '{"step": 1}'::jsonb,
          'the cancelled job keeps its checkpoint');

select * from finish();
rollback;
