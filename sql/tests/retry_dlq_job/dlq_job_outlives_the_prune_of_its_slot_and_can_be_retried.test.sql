-- A DLQ entry holds the job's whole body, so the job survives the prune of
-- the queue slot it ran from and can still be retried from the DLQ.
begin;
select plan(4);

select * from awa.configure_queue('dlqq', '{"dlq": true}');
create temp table j as select * from awa.insert_job('dlq.k', '{"keep": true}', '{"queue": "dlqq", "max_attempts": 1}');
create temp table c as select * from awa.claim_ready_runtime('dlqq', 1, null, now());
select * from awa.fail_jobs(array[(select id from c)], array[(select run_lease from c)], array[(select claim_slot from c)],
                            array[(select receipt_id from c)], array['fatal'], now());
select * from awa.rotate_ring('queue', now());

select is((select outcome from awa.prune_ring('queue')), 'pruned', 'the DLQ job''s old slot is pruned');
select results_eq($$select state, dlq from awa.jobs where id = (select id from j)$$,
                  $$values ('failed'::awa.job_state, true)$$, 'awa.jobs still shows the DLQ job');

select results_eq($$select id, state from awa.retry_dlq_job((select id from j), null, now())$$,
                  $$select id, 'available'::awa.job_state from j$$, 'the DLQ job is retried');
select results_eq($$select id, attempt, args from awa.claim_ready_runtime('dlqq', 1, null, now())$$,
                  $$select id, 1, '{"keep": true}'::jsonb from j$$, 'and claimed with its args intact');

select * from finish();
rollback;
