-- Claiming a queue with no available job returns no row and writes no claim
-- batch: never-used queues, drained queues and queues holding only scheduled
-- jobs.
begin;
select plan(4);

select is_empty($$select * from awa.claim_ready_runtime('never_used', 10, null, '2030-01-01 12:00:00+00')$$,
  'a queue that was never used returns no row');

select * from awa.insert_job('later', '{}', jsonb_build_object('queue', 'only_scheduled', 'run_at', now() + interval '1 hour'));
select is_empty($$select * from awa.claim_ready_runtime('only_scheduled', 10, null, '2030-01-01 12:00:00+00')$$,
  'a queue holding only scheduled jobs returns no row');

select * from awa.insert_job('x', '{}', '{"queue": "drained"}');
select * from awa.claim_ready_runtime('drained', 10, null, '2030-01-01 12:00:00+00');
select is_empty($$select * from awa.claim_ready_runtime('drained', 10, null, '2030-01-01 12:00:01+00')$$,
  'a drained queue returns no row');

select is((select count(*) from awa.claim_batches where queue in ('never_used', 'only_scheduled')), 0::bigint,
  'empty claims write no claim batch');

select * from finish();
rollback;
