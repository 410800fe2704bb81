-- An attempt claimed with p_attempt_deadline (on a queue without a deadline)
-- is left alone until that deadline, then closed through the retry path.
begin;
select plan(3);

create temp table j as select * from awa.insert_job('k', '{}', '{"queue": "adq"}');
create temp table c as
select * from awa.claim_ready_runtime('adq', 1, null, now(), p_attempt_deadline => interval '10 minutes');

select is_empty($$select * from awa.rescue_expired_deadlines(1000, now() + interval '9 minutes')$$,
                'nothing is rescued before the attempt deadline');
select results_eq(
  $$select job_id, run_lease, outcome, state from awa.rescue_expired_deadlines(1000, now() + interval '11 minutes')$$,
  $$select id, run_lease, 'applied'::awa.finalize_outcome, 'retryable'::awa.job_state from c$$,
  'after the attempt deadline the attempt is rescued into retryable');
select is((select errors -> -1 ->> 'error' from awa.jobs where id = (select id from j)), 'rescued: deadline exceeded',
          'the rescue is recorded as the attempt''s error');

select * from finish();
rollback;
