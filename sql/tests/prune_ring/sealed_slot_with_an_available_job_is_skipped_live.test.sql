-- A sealed queue slot still holding an available job is not pruned: the
-- outcome is skipped_live and the detail names the job.
begin;
select plan(3);

create temp table j as select * from awa.insert_job('prune.k', '{}', '{"queue": "nq"}');
select * from awa.rotate_ring('queue', now());

select results_eq(
  $$select ring, outcome, slot, generation from awa.prune_ring('queue')$$,
  $$values ('queue'::text, 'skipped_live'::text, 0, 1::bigint)$$,
  'the sealed slot 0 with an available job is skipped_live');

select is((select detail from awa.prune_ring('queue')),
          (select format('ready slot 0 holds an available job (job %s, lane %s position %s)', r.job_id, r.lane_id, r.lane_seq)
           from awa.ready_entries r where r.job_id = (select id from j)),
          'the detail names the available job and its lane position');

select is((select state from awa.jobs where id = (select id from j)), 'available'::awa.job_state,
          'the job is still available');

select * from finish();
rollback;
