-- The lease ring: a sealed slot (not the one the next rotation needs) holding
-- the lease of an open attempt is live; once the attempt is closed its lease
-- is dead and the slot is pruned.
begin;
select plan(3);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "nq"}', now());
select outcome from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 1}');
select is((select outcome from awa.rotate_ring('lease', now())), 'rotated', 'the lease ring rotates (fixture)');

select results_eq(
  $$select ring, outcome, slot, detail from awa.prune_ring('lease')$$,
  $$select 'lease'::text, 'skipped_live'::text, 0, format('lease slot 0 holds the lease of job %s', id) from c$$,
  'a sealed lease slot holding a live lease is skipped_live');

select outcome from c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id]);
select is((select outcome from awa.prune_ring('lease')), 'pruned', 'once the attempt is closed its slot is pruned');

select * from finish();
rollback;
