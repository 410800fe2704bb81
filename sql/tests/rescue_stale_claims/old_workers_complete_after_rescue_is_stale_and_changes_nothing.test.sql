-- After a rescue, the old worker's complete_jobs for the rescued attempt is
-- reported stale and writes nothing: the job stays retryable and no
-- completion batch appears.
begin;
select plan(5);

create temp table j as select * from awa.insert_job('rescue.k', '{}', '{"queue": "rq"}');
create temp table c as select * from awa.claim_ready_runtime('rq', 1, null, now());
select * from awa.rescue_stale_claims(interval '90 seconds', 1000, now() + interval '91 seconds');

select results_eq(
  $$select job_id, run_lease, outcome, state
    from awa.complete_jobs(array[(select id from c)], array[(select run_lease from c)],
                           array[(select claim_slot from c)], array[(select receipt_id from c)],
                           now() + interval '92 seconds')$$,
  $$select id, run_lease, 'stale'::awa.finalize_outcome, null::awa.job_state from c$$,
  'the late complete is reported stale');

select awa_test.writes_nothing(
  $$select * from awa.complete_jobs(array[(select id from c)], array[(select run_lease from c)],
                                   array[(select claim_slot from c)], array[(select receipt_id from c)],
                                   now() + interval '92 seconds')$$,
  'the late complete writes nothing');

select is((select state from awa.jobs where id = (select id from j)), 'retryable'::awa.job_state,
          'the job stays retryable');

select is((select count(*)::int from awa.done_completions), 0, 'no completion batch was written');

select is_empty($$select * from awa.terminal_jobs$$, 'the job has no terminal history');

select * from finish();
rollback;
