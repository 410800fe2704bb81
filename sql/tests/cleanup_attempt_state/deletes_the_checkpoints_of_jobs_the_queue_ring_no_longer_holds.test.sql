-- The checkpoints of a failed and a cancelled job stay while the queue ring
-- holds the jobs; once their slot is pruned they are deleted (and returned).
-- Checkpoints of jobs still running, retryable or in the DLQ stay.
begin;
select plan(4);

select awa.configure_queue('cas_dlq', '{"dlq": true}');
select * from awa.insert_jobs(array['fail', 'cancel', 'run', 'retry'], null, array_fill('{"queue": "cas"}'::jsonb, array[4]));
select * from awa.insert_job('dlq', '{}', '{"queue": "cas_dlq"}');
create temp table c as select * from awa.claim_ready_runtime('cas', 4)
                       union all select * from awa.claim_ready_runtime('cas_dlq', 1);
select count(*) from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, jsonb_build_object('kind', c.kind));
select count(*) from c, awa.fail_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id], array['x'])
where c.kind in ('fail', 'dlq');
select count(*) from c, awa.cancel_job(c.id) where c.kind = 'cancel';
select count(*) from c, awa.retry_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id], array['x'],
                                       array['2100-01-01 00:00:00+00'::timestamptz]) where c.kind = 'retry';

select is_empty($$select * from awa.cleanup_attempt_state()$$, 'nothing is deleted while the queue ring holds every job');

-- The failed and cancelled jobs' ready slot (0) is reclaimed: the running
-- job's ready row is carried out of it (by the prunes of the turns, once
-- slot 0 is no longer the newest sealed slot, or by the last one).
select awa_test.turn('queue', 15, '_turn', true);
select is(awa._current_slot('queue'), 15, 'the queue ring stands before slot 0 (fixture)');
select awa.prune_ring('queue');
select is((select count(*) from awa.ready_entries where ready_slot = 0), 0::bigint, 'slot 0 is pruned (fixture)');

select results_eq($$select job_id from awa.cleanup_attempt_state() order by 1$$,
                  $$select id from c where kind in ('fail', 'cancel') order by 1$$,
                  'the failed and the cancelled job''s checkpoints are deleted, no other');

select * from finish();
rollback;
