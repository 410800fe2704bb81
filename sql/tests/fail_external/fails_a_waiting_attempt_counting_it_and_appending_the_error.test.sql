-- fail_external of an attempt waiting in sequence is applied (state
-- failed): the attempt closes (closure outcome callback_fail), is counted,
-- the error is appended; the job's checkpoint is kept, as after any failure;
-- without an error the entry says 'no error message'.
begin;
select plan(5);

create temp table c as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00', interval '1 hour', '{}',
                                                          '{"step": 1}');

select results_eq(
  $$select o.callback_id, o.job_id, o.run_lease, o.outcome, o.state
    from c, awa.fail_external(c.callback_id, 'vendor said no', '2030-01-01 12:00:05+00') o$$,
  $$select c.callback_id, c.id, c.run_lease, 'applied'::awa.finalize_outcome, 'failed'::awa.job_state from c$$,
  'the failure is applied');
select results_eq($$select state, attempt, errors, dlq from awa.jobs where id = (select id from c)$$,
                  $$values ('failed'::awa.job_state, 1,
                            '[{"at": "2030-01-01T12:00:05+00:00", "error": "vendor said no", "attempt": 1}]'::jsonb, false)$$,
                  'the job failed, attempt 1 counted, the error appended');
select results_eq($$select outcome from awa.claim_closures$$, $$values ('callback_fail'::text)$$,
                  'the attempt is closed with outcome callback_fail');
select is((select progress from awa.job_progress((select id from c))), '{"step": 1}'::jsonb, 'the checkpoint is kept');

create temp table quiet as select * from awa_test.claim_registered('cb_quiet', '2030-01-01 12:00:00+00');
select state from quiet, awa.fail_external(quiet.callback_id);
select is((select errors -> 0 ->> 'error' from awa.jobs where id = (select id from quiet)), 'no error message',
          'without an error the entry says no error message');

select * from finish();
rollback;
