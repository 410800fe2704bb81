-- In the sealed queue slot the next rotation needs, a running job does not
-- keep the slot: prune carries it forward. storage_status shows the slot as
-- next and carried, naming the running job, its queue and the cause running.
begin;
select plan(3);

create temp table j as select * from awa.insert_job('long.k', '{}', '{"queue": "long_q"}');
create temp table c as select * from awa.claim_ready_runtime('long_q', 1);
select is(awa_test.turn('queue', 15), 15, 'the queue ring is turned until slot 0 is the next rotation''s (fixture)');

select results_eq(
  $$select role, status, cause, job_id, queue from awa.storage_status() where ring = 'queue' and slot = 0$$,
  $$select 'next'::text, 'carried'::text, 'running'::text, id, 'long_q'::text from j$$,
  'the next slot is carried, naming the running job and its queue');
select is((select outcome from awa.prune_ring('queue')), 'pruned', 'prune agrees: it carries the job and truncates the slot');

select * from finish();
rollback;
