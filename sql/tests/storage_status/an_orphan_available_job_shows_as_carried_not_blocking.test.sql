-- A job nobody claims, in a sealed queue slot: prune carries it forward, so
-- the slot is not blocked. storage_status shows the slot carried, naming the
-- job, its queue and the cause available, and the proof with prune's own
-- arguments finds nothing that blocks (prune then carries and truncates it).
begin;
select plan(5);

create temp table j as select * from awa.insert_job('orphan.k', '{}', '{"queue": "orphan_q"}');
select is((select outcome from awa.rotate_ring('queue', now())), 'rotated', 'queue slot 0 is sealed (fixture)');

select results_eq(
  $$select role, status, cause, job_id, queue, rows, rows_capped from awa.storage_status() where ring = 'queue' and slot = 0$$,
  $$select 'sealed'::text, 'carried'::text, 'available'::text, id, 'orphan_q'::text, 1::bigint, false from j$$,
  'the sealed slot is carried, naming the orphan job, its queue and the cause');
select ok((select detail from awa.storage_status() where ring = 'queue' and slot = 0) like 'ready slot 0 holds an available job (job %',
          'the detail is the proof''s own text');
select is((select status from awa.storage_status() where ring = 'queue' and slot = 1), 'current', 'slot 1 is current');
select is((select outcome from awa.prune_ring('queue')), 'pruned', 'prune agrees: it carries the job and truncates the slot');

select * from finish();
rollback;
