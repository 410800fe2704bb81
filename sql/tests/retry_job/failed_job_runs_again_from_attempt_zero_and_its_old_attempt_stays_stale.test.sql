-- A job that failed for good (no DLQ) is run again by retry_job: its terminal
-- snapshot goes, it is available at once from attempt 0 with its errors kept
-- and its run_lease kept, it shows once in awa.jobs, a claim takes it with
-- the next run_lease, and the failed attempt's late finalizer stays stale.
begin;
select plan(6);

create temp table c as select * from awa_test.claim_one('retry.k', '{"n": 1}', '{"queue": "rq", "max_attempts": 1}', now());
select count(*) from c, awa.fail_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id], array['boom']);
select is((select state from c, awa.job(c.id)), 'failed'::awa.job_state, 'the job failed for good (fixture)');

select results_eq(
  $$select r.id, r.state, r.queue, r.kind from c, awa.retry_job(c.id) as r$$,
  $$select id, 'available'::awa.job_state, 'rq'::text, 'retry.k'::text from c$$,
  'retry_job makes the failed job available');
select results_eq(
  $$select j.state, j.attempt, j.run_lease, jsonb_array_length(j.errors), j.args from c, awa.jobs j where j.id = c.id$$,
  $$select 'available'::awa.job_state, 0, c.run_lease, 1, '{"n": 1}'::jsonb from c$$,
  'awa.jobs shows it once: available, attempt 0, same run_lease, its error kept');
select is((select count(*) from c, awa.done_entries d where d.job_id = c.id), 0::bigint, 'its terminal snapshot is gone');

create temp table c2 as select * from awa.claim_ready_runtime('rq', 1);
select results_eq($$select c2.id, c2.run_lease, c2.attempt from c2$$, $$select id, run_lease + 1, 1 from c$$,
                  'a claim takes it with the next run_lease, as its first attempt');
select results_eq(
  $$select outcome from c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id])$$,
  $$values ('stale'::awa.finalize_outcome)$$, 'the failed attempt''s late complete is stale');

select * from finish();
rollback;
