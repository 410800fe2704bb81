-- The deadline is part of the job's attempt_state row and goes with it: a
-- completion deletes the row (checkpoint and deadline); a cancelled job's row
-- (its deadline only) stays while the queue ring holds the job and is
-- deleted by cleanup_attempt_state once its slot is pruned.
begin;
select plan(5);

select * from awa.insert_jobs(array['done', 'cancel'], null, array_fill('{"queue": "sad"}'::jsonb, array[2]));
create temp table c as select * from awa.claim_ready_runtime('sad', 2);
select count(*) from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 1}') where c.kind = 'done';
select count(*) from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id, now() + interval '1 hour');
select is((select count(*) from awa.attempt_state where deadline_at is not null), 2::bigint, 'both attempts have a deadline (fixture)');

select results_eq($$select f.outcome, f.state from c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot],
                                                                         array[c.receipt_id]) f where c.kind = 'done'$$,
                  $$values ('applied'::awa.finalize_outcome, 'completed'::awa.job_state)$$, 'one job completes');
select count(*) from c, awa.cancel_job(c.id) where c.kind = 'cancel';
select results_eq($$select job_id from awa.attempt_state$$, $$select id from c where kind = 'cancel'$$,
                  'the completion deleted its row, deadline and all; the cancelled job''s row stays');

select awa_test.turn('queue', 15, '_turn', true);
select awa.prune_ring('queue');
select is((select count(*) from awa.ready_entries where ready_slot = 0), 0::bigint, 'the jobs'' queue slot is pruned (fixture)');
select results_eq($$select job_id from awa.cleanup_attempt_state()$$, $$select id from c where kind = 'cancel'$$,
                  'cleanup_attempt_state deletes the cancelled job''s row with its deadline');

select * from finish();
rollback;
