-- A DLQ entry holds the job's whole body, so the job survives the prune of
-- the queue slot it ran from and can still be retried from the DLQ.
begin;
select plan(4);

create temp table c as select * from awa_test.dlq_claim('dlq.k', '{"keep": true}', '{"queue": "dlqq", "max_attempts": 1}', now());
select * from awa.rotate_ring('queue', now());

select is((select outcome from awa.prune_ring('queue')), 'pruned', 'the DLQ job''s old slot is pruned');
select results_eq($$select state, dlq from awa.jobs where id = (select id from c)$$,
                  $$values ('failed'::awa.job_state, true)$$, 'awa.jobs still shows the DLQ job');

select results_eq($$select id, state from awa.retry_dlq_job((select id from c), null, now())$$,
                  $$select id, 'available'::awa.job_state from c$$, 'the DLQ job is retried');
select results_eq($$select id, attempt, args from awa.claim_ready_runtime('dlqq', 1, null, now())$$,
                  $$select id, 1, '{"keep": true}'::jsonb from c$$, 'and claimed with its args intact');

select * from finish();
rollback;
