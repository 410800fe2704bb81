-- A job that reported progress, was retried for later and then cancelled in
-- the backlog has its cancel snapshot in the queue ring's current slot, while
-- the slot of its last ready row may be pruned already. The ring still holds
-- the job (awa.jobs shows it cancelled, with its checkpoint), so cleanup keeps
-- its checkpoint, and awa.retry_job runs it again with it, as documented; once
-- the snapshot's slot is pruned too, cleanup deletes it.
begin;
select plan(5);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "cas"}', now());
select outcome from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 7}');
select outcome from c, awa.retry_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id],
                                      array['boom'], array[now() + interval '1 hour']);
select * from awa.rotate_ring('queue', now());
select is((select outcome from awa.prune_ring('queue')), 'pruned', 'the slot of the job''s ready row is pruned (fixture)');
select outcome from c, awa.cancel_job(c.id);

select is_empty($$select * from awa.cleanup_attempt_state()$$, 'cleanup keeps the cancelled job''s checkpoint');
select results_eq($$select x.state, x.progress from c, awa.jobs x where x.id = c.id$$,
                  $$values ('cancelled'::awa.job_state, '{"step": 7}'::jsonb)$$,
                  'awa.jobs shows the job cancelled with its checkpoint');
select results_eq($$select r.state, p.progress from c, awa.retry_job(c.id) r, awa.jobs p where p.id = c.id$$,
                  $$values ('available'::awa.job_state, '{"step": 7}'::jsonb)$$,
                  'retry_job runs it again, its checkpoint kept');

-- Cancelled again, and the slot of its snapshot pruned: gone from the ring.
create temp table c2 as select * from awa.claim_ready_runtime('cas', 1);
select outcome from c, awa.cancel_job(c.id);
select * from awa_test.turn('queue', 3, 'cas_turn', true);
select results_eq($$select job_id from awa.cleanup_attempt_state()$$, $$select id from c$$,
                  'once the ring no longer holds the job, cleanup deletes its checkpoint');

select * from finish();
rollback;
