-- The lease ring: a sealed slot holding any materialized lease is live; once
-- the lease is gone the slot is prunable (here: already_empty).
begin;
select plan(3);

insert into awa.leases (lease_slot, job_id, run_lease, claim_slot, receipt_id, queue, created_at)
values (0, 424242, 1, 0, 1024, 'nq', now());
select is((select outcome from awa.rotate_ring('lease', now())), 'rotated', 'the lease ring rotates (fixture)');

select results_eq(
  $$select ring, outcome, slot, detail from awa.prune_ring('lease')$$,
  $$values ('lease'::text, 'skipped_live'::text, 0, 'lease slot 0 holds the lease of job 424242'::text)$$,
  'a sealed lease slot holding a lease is skipped_live');

delete from awa.leases;
select is((select outcome from awa.prune_ring('lease')), 'already_empty', 'without the lease nothing is left to prune');

select * from finish();
rollback;
