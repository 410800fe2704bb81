-- A handler waiting in sequence sees 'waiting' (writing nothing) until the
-- callback is resumed; then 'resumed' with the payload, once: the
-- registration is deleted and the job shows running again; a later take with
-- that token is stale. The attempt stays open: the handler completes it.
begin;
select plan(8);

create temp table c as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00');
prepare take as select t.job_id, t.run_lease, t.status, t.result
  from c, awa.take_callback_result(c.id, c.run_lease, c.claim_slot, c.receipt_id, c.callback_id) t;

select results_eq('take', $$select id, run_lease, 'waiting'::text, null::jsonb from c$$, 'before the resume it is waiting');
select awa_test.writes_nothing('execute take', 'a waiting take writes nothing');
select is((select state from c, awa.resume_external(c.callback_id, '{"answer": 42}', '2030-01-01 12:00:01+00')),
          'running'::awa.job_state, 'the callback resumes the waiting attempt (fixture)');
select results_eq('take', $$select id, run_lease, 'resumed'::text, '{"answer": 42}'::jsonb from c$$,
                  'after the resume it hands the payload over');
select is((select count(*) from awa.callbacks), 0::bigint, 'the registration is deleted');
select results_eq('take', $$select id, run_lease, 'stale'::text, null::jsonb from c$$,
                  'the payload is handed over once: a second take is stale');
select is((select state from awa.jobs where id = (select id from c)), 'running'::awa.job_state, 'the job runs again');
select is((select outcome from c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id])),
          'applied'::awa.finalize_outcome, 'the handler completes its attempt');

select * from finish();
rollback;
