-- resume_external of an attempt waiting in sequence is applied (state
-- running): the registration records the payload and when, for the handler
-- to take; nothing else is written; the attempt stays open and counts as
-- running again (no longer waiting_external); its progress checkpoint stays.
begin;
select plan(6);

create temp table c as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00', interval '1 hour', '{}',
                                                          '{"step": 1}');
create temp table before as select awa_test.write_counts() as n;

select results_eq(
  $$select o.callback_id, o.job_id, o.run_lease, o.outcome, o.state
    from c, awa.resume_external(c.callback_id, '{"answer": 42}', '2030-01-01 12:00:05+00') o$$,
  $$select c.callback_id, c.id, c.run_lease, 'applied'::awa.finalize_outcome, 'running'::awa.job_state from c$$,
  'the resume is applied and the attempt runs');
select is(awa_test.changed((select n from before), awa_test.write_counts()), '{"callbacks": 1}'::jsonb,
          'the resume updates the registration only');
select results_eq($$select resumed_at, result from awa.callbacks$$,
                  $$values ('2030-01-01 12:00:05+00'::timestamptz, '{"answer": 42}'::jsonb)$$,
                  'the registration holds the payload and when it came');
select results_eq($$select state, attempt, run_lease from awa.jobs where id = (select id from c)$$,
                  $$select 'running'::awa.job_state, 1, run_lease from c$$, 'the job shows running, attempt 1');
select results_eq($$select running, waiting_external from awa.queue_counts('cb')$$, $$values (1::bigint, 0::bigint)$$,
                  'queue_counts counts it running');
select is((select progress from awa.job_progress((select id from c))), '{"step": 1}'::jsonb, 'the checkpoint stays');

select * from finish();
rollback;
