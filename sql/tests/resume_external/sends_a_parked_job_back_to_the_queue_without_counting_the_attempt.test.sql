-- resume_external of a parked job is applied (state available): the job
-- leaves the parked plane for a ready row, its parked attempt not counted,
-- the payload in metadata.callback_result; its progress checkpoint is kept
-- across the park and the resume, for the next attempt, which reads both.
begin;
select plan(6);

create temp table c as select * from awa_test.claim_parked('cb', '2030-01-01 12:00:00+00', interval '1 hour', '{}',
                                                          '{"step": 1}');

select results_eq(
  $$select o.callback_id, o.job_id, o.run_lease, o.outcome, o.state
    from c, awa.resume_external(c.callback_id, '{"answer": 42}', '2030-01-01 12:00:05+00') o$$,
  $$select c.callback_id, c.id, c.run_lease, 'applied'::awa.finalize_outcome, 'available'::awa.job_state from c$$,
  'the resume is applied and the job is available');
select is((select count(*) from awa.external_waits), 0::bigint, 'the job is no longer parked');
select results_eq($$select state, attempt, metadata, run_at from awa.jobs where id = (select id from c)$$,
                  $$values ('available'::awa.job_state, 0, '{"callback_result": {"answer": 42}}'::jsonb,
                            '2030-01-01 12:00:05+00'::timestamptz)$$,
                  'available now, the parked attempt not counted, the payload in its metadata');
select results_eq($$select available, waiting_external from awa.queue_counts('cb')$$, $$values (1::bigint, 0::bigint)$$,
                  'queue_counts counts it available');
create temp table again as select * from awa.claim_ready_runtime('cb', 1, null, '2030-01-01 12:00:06+00');
select results_eq($$select attempt, metadata from again$$, $$values (1, '{"callback_result": {"answer": 42}}'::jsonb)$$,
                  'the next attempt is attempt 1 and reads the payload');
select is((select progress from awa.job_progress((select id from c))), '{"step": 1}'::jsonb,
          'and the checkpoint written before the park');

select * from finish();
rollback;
