-- A sealed queue slot whose job is claimed but not finalized, and that is not
-- the slot the next rotation needs, is not pruned: skipped_live with a detail
-- naming the open claim batch (most attempts close within seconds; only the
-- next rotation's slot carries running jobs forward).
begin;
select plan(3);

create temp table j as select * from awa.insert_job('prune.k', '{}', '{"queue": "nq"}');
create temp table c as select * from awa.claim_ready_runtime('nq', 1, null, now());
select * from awa.rotate_ring('queue', now());

create temp table p as select * from awa.prune_ring('queue');

select results_eq(
  $$select outcome, slot from p$$,
  $$values ('skipped_live'::text, 0)$$,
  'the sealed slot 0 with a running job is skipped_live');

select is((select detail from p),
          format('ready slot 0 has a running job (claim batch %s in claim slot 0 is not closed)',
                 (select receipt_id >> 10 from c)),
          'the detail names the open claim batch');

select is((select count(*)::int from awa.ready_entries_0), 1, 'the running job''s ready row is kept');

select * from finish();
rollback;
