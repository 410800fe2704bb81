-- A callback resumed before the handler parks: the park is applied but the
-- job goes straight back to the queue (state available, the attempt not
-- counted, the payload in metadata.callback_result), nothing is parked, the
-- registration is gone; the next claim is attempt 1 again with a new run_lease
-- and reads the payload; the token then resolves nothing.
begin;
select plan(7);

create temp table c as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00');
select outcome from c, awa.resume_external(c.callback_id, '{"answer": 42}', '2030-01-01 12:00:01+00');

select results_eq(
  $$select p.job_id, p.outcome, p.state
    from c, awa.park_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id], '2030-01-01 12:00:02+00') p$$,
  $$select id, 'applied'::awa.finalize_outcome, 'available'::awa.job_state from c$$,
  'the park is applied and the job is available at once');
select is((select count(*) from awa.external_waits) + (select count(*) from awa.callbacks), 0::bigint,
          'nothing is parked and the registration is gone');
select results_eq($$select state, attempt, metadata from awa.jobs where id = (select id from c)$$,
                  $$values ('available'::awa.job_state, 0, '{"callback_result": {"answer": 42}}'::jsonb)$$,
                  'the job is available, the parked attempt not counted, the payload in its metadata');
create temp table again as select * from awa.claim_ready_runtime('cb', 1, null, '2030-01-01 12:00:03+00');
select results_eq($$select id, run_lease, attempt, metadata from again$$,
                  $$select id, run_lease + 1, 1, '{"callback_result": {"answer": 42}}'::jsonb from c$$,
                  'the next claim is attempt 1 with a new run_lease and reads the payload');
prepare late as select o.outcome from c, awa.complete_external(c.callback_id, '{"late": true}') o;
select is((select outcome from c, awa.complete_external(c.callback_id, '{"late": true}')), 'stale'::awa.finalize_outcome,
          'the token completes nothing after the re-claim');
select awa_test.writes_nothing('execute late', 'the stale completion writes nothing');
select is((select state from awa.jobs where id = (select id from c)), 'running'::awa.job_state,
          'the new attempt runs');

select * from finish();
rollback;
