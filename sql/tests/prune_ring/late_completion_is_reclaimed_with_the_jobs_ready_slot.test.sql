-- A job claimed from slot 0 and completed after the queue ring moved on
-- writes its completion history into slot 0 (its ready row's slot), so the
-- history is reclaimed together with slot 0 and the current slot stays empty.
begin;
select plan(4);
-- The queue ring alone: archive retention 0 (with it on, the prune copies the
-- slot's terminal jobs to the archive first: prune_ring/archives_*).
select awa.configure_archive('{"completed_seconds": 0, "failed_seconds": 0, "cancelled_seconds": 0}');

create temp table j as select * from awa.insert_job('prune.k', '{}', '{"queue": "nq"}');
create temp table c as select * from awa.claim_ready_runtime('nq', 1, null, now());
select * from awa.rotate_ring('queue', now());
select * from awa.complete_jobs(array[(select id from c)], array[(select run_lease from c)],
                                array[(select claim_slot from c)], array[(select receipt_id from c)], now());

select is((select ready_slot from awa.done_completions), 0, 'the completion batch is in ready slot 0');
select is((select count(*)::int from awa.done_completions_1), 0, 'nothing was written into current slot 1');
select is((select outcome from awa.prune_ring('queue')), 'pruned', 'slot 0 is pruned');
select is_empty($$select * from awa.terminal_jobs$$, 'the completion history went with it');

select * from finish();
rollback;
