-- A running job drawn from a sealed queue slot that is not the one the next
-- rotation needs keeps the slot (prune: skipped_live). storage_status shows
-- it blocked, naming the running job, its queue and the cause running, with
-- the detail prune gives for the same slot.
begin;
select plan(3);

create temp table j as select * from awa.insert_job('run.k', '{}', '{"queue": "run_q"}');
create temp table c as select * from awa.claim_ready_runtime('run_q', 1);
select is((select outcome from awa.rotate_ring('queue', now())), 'rotated', 'queue slot 0 is sealed (fixture)');

select results_eq(
  $$select role, status, cause, job_id, queue from awa.storage_status() where ring = 'queue' and slot = 0$$,
  $$select 'sealed'::text, 'blocked'::text, 'running'::text, id, 'run_q'::text from j$$,
  'the slot is blocked by the running job of its queue');
select is((select detail from awa.storage_status() where ring = 'queue' and slot = 0),
          (select detail from awa.prune_ring('queue')),
          'its detail is what prune reports for the slot');

select * from finish();
rollback;
