-- Once stale-heartbeat rescue has closed the attempt (its process is gone),
-- the old worker's set_progress is stale and writes nothing; the checkpoint
-- it wrote before the rescue stays for the next attempt.
begin;
select plan(4);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "sp"}', '2030-01-01 12:00:00+00');
select outcome from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 1}', '2030-01-01 12:00:01+00');
select is((select count(*) from awa.rescue_stale_claims(interval '90 seconds', 10, '2030-01-01 12:10:00+00')), 1::bigint,
          'rescue closes the attempt (fixture)');

prepare late as select s.job_id, s.run_lease, s.outcome, s.state from c,
  awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 2}', '2030-01-01 12:10:01+00') s;
select results_eq('late', $$select id, run_lease, 'stale'::awa.finalize_outcome, null::awa.job_state from c$$,
                  'the old worker''s write is stale');
select awa_test.writes_nothing('execute late', 'a stale write writes nothing');
select is((select progress from awa.job_progress((select id from c))), '{"step": 1}'::jsonb,
          'the checkpoint written before the rescue is kept');

select * from finish();
rollback;
