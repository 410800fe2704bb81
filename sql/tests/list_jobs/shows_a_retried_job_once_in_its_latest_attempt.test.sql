-- A job retried and run again has two ready rows in the same slot, the
-- first claimed and closed: awa.list_jobs and awa.get_job show it once, in
-- its latest attempt's state (retryable, available, running, completed), as
-- awa.jobs does; the first attempt's row is never taken for the job.
begin;
select plan(8);

select awa.insert_job('again.k', '{}', '{"queue": "again"}');
create temp table c1 as select * from awa.claim_ready_runtime('again', 1, null, now());
select awa.retry_jobs(array[c1.id], array[c1.run_lease], array[c1.claim_slot], array[c1.receipt_id], array['once more'],
                      array[now() - interval '1 second'], now()) from c1;
select results_eq($$select id, state, attempt, run_lease from awa.list_jobs(p_queue => 'again')$$,
                  $$select id, state, attempt, run_lease from awa.jobs where queue = 'again'$$, 'retryable, once');
select awa.promote_due_jobs();
select results_eq($$select id, state, attempt, run_lease from awa.list_jobs(p_queue => 'again')$$,
                  $$select id, state, attempt, run_lease from awa.jobs where queue = 'again'$$, 'available again, once');
create temp table c2 as select * from awa.claim_ready_runtime('again', 1, null, now());
select results_eq($$select id, state, attempt, run_lease, claimed_at from awa.list_jobs(p_queue => 'again')$$,
                  $$select id, state, attempt, run_lease, claimed_at from awa.jobs where queue = 'again'$$,
                  'running in its second attempt, once, claimed when the second claim ran');
select results_eq($$select id, state, run_lease from awa.get_job((select id from c2))$$,
                  $$select id, 'running'::awa.job_state, run_lease from c2$$, 'get_job: the same');
select awa.complete_jobs(array[c2.id], array[c2.run_lease], array[c2.claim_slot], array[c2.receipt_id], now()) from c2;
select results_eq($$select id, state, attempt, run_lease, finalized_at from awa.list_jobs(p_queue => 'again')$$,
                  $$select id, state, attempt, run_lease, finalized_at from awa.jobs where queue = 'again'$$,
                  'completed, once');
select results_eq($$select id, state, run_lease from awa.get_job((select id from c2))$$,
                  $$select id, 'completed'::awa.job_state, run_lease from c2$$, 'get_job: completed');
select is((select count(*)::int from awa.ready_entries where queue = 'again'), 2, 'two ready rows hold the job (fixture)');
select is((select count(distinct ready_slot)::int from awa.ready_entries where queue = 'again'), 1,
          'in the same slot (fixture)');

select * from finish();
rollback;
