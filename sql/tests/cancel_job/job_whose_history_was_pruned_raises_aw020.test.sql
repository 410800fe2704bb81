-- Once the queue ring no longer retains a finished job (its slot was pruned),
-- cancel_job cannot find it: AW020.
begin;
select plan(2);
-- The queue ring alone: archive retention 0 (with it on, the prune copies the
-- slot's terminal jobs to the archive first: prune_ring/archives_*).
select awa.configure_archive('{"completed_seconds": 0, "failed_seconds": 0, "cancelled_seconds": 0}');

select * from awa.insert_job('cancel.k', '{}', '{"queue": "cq"}');
create temp table cl as select * from awa.claim_ready_runtime('cq', 1, null, now());
select * from awa.complete_jobs(array[(select id from cl)], array[(select run_lease from cl)],
                                array[(select claim_slot from cl)], array[(select receipt_id from cl)], now());
select * from awa.rotate_ring('queue', now());
select is((select outcome from awa.prune_ring('queue')), 'pruned', 'the slot holding the completed job is pruned (fixture)');

select throws_ok(format('select * from awa.cancel_job(%s)', (select id from cl)),
                 'AW020', format('awa: job %s not found', (select id from cl)),
                 'cancelling a job whose history was pruned raises AW020');

select * from finish();
rollback;
