-- After a retry and a re-claim, the previous attempt's deadline is stale
-- (nothing written). The new attempt's is applied: it names the new attempt
-- and its receipt, escalates it with a lease of its own, and leaves the
-- predecessor's checkpoint as it was (job_progress still names the attempt
-- that wrote it).
begin;
select plan(6);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "sad"}', '2030-01-01 12:00:00+00');
select outcome from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 1}', '2030-01-01 12:00:01+00');
select outcome from c, awa.retry_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id],
                                      array['boom'], array['2030-01-01 12:00:02+00'::timestamptz], '2030-01-01 12:00:02+00');
select count(*) from awa.promote_due_jobs(1000, '2030-01-01 12:00:03+00');
create temp table c2 as select * from awa.claim_ready_runtime('sad', 1, null, '2030-01-01 12:00:04+00');
select is((select run_lease from c2), (select run_lease + 1 from c), 'the job is claimed again (fixture)');

prepare old as select s.job_id, s.run_lease, s.outcome, s.state, s.deadline_at from c,
  awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id, '2030-01-01 13:00:00+00', '2030-01-01 12:00:05+00') s;
select results_eq('old', $$select id, run_lease, 'stale'::awa.finalize_outcome, null::awa.job_state, null::timestamptz from c$$,
                  'the previous attempt''s deadline is stale');
select awa_test.writes_nothing('execute old', 'the previous attempt writes nothing');
select is((select outcome from c2, awa.set_attempt_deadline(c2.id, c2.run_lease, c2.claim_slot, c2.receipt_id,
                                                            '2030-01-01 14:00:00+00', '2030-01-01 12:00:06+00')),
          'applied'::awa.finalize_outcome, 'the new attempt''s deadline is applied');
select results_eq(
  $$select run_lease, progress, deadline_at, deadline_run_lease, deadline_claim_slot, deadline_receipt_id from awa.attempt_state$$,
  $$select c.run_lease, '{"step": 1}'::jsonb, '2030-01-01 14:00:00+00'::timestamptz, c2.run_lease, c2.claim_slot, c2.receipt_id
    from c, c2$$,
  'the deadline names the new attempt and its receipt; the checkpoint and its attempt stay');
select results_eq($$select run_lease from awa.leases order by run_lease$$,
                  $$select run_lease from c union all select run_lease from c2$$,
                  'each attempt has one lease of its own');

select * from finish();
rollback;
