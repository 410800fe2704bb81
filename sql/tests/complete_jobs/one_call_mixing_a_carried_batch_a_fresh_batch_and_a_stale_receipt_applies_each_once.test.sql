-- A finalizer looks for each receipt's batch in the claim slot it was issued
-- in first, and only for the receipts not applied there in the other slots
-- (a batch prune carried forward). One call mixing a receipt of a carried
-- batch, a receipt of a batch still in its issued slot and a stale receipt
-- (already completed) applies the first two once each and the stale one
-- not at all.
begin;
select plan(4);

select * from awa.insert_jobs(array['long', 'done'], null, array_fill('{"queue": "mx"}'::jsonb, array[2]));
create temp table c as select * from awa.claim_ready_runtime('mx', 2);
select * from awa.complete_jobs(array(select id from c where kind = 'done'), array(select run_lease from c where kind = 'done'),
                                array(select claim_slot from c where kind = 'done'), array(select receipt_id from c where kind = 'done'));
select is(awa_test.turn('claim', 7), 7, 'the claim ring is turned until slot 0 is the next rotation''s (fixture)');
select is((select outcome from awa.prune_ring('claim')), 'pruned', 'slot 0 is pruned, its open batch carried to slot 7');

select * from awa.insert_job('fresh', '{}', '{"queue": "mx"}');
insert into c select * from awa.claim_ready_runtime('mx', 1);
select is((select claim_slot from c where kind = 'fresh'), 7, 'the fresh job is claimed in slot 7 (fixture)');

-- Call order: stale, fresh, carried.
select results_eq(
  $$select r.job_id, r.outcome, r.state
    from awa.complete_jobs(array(select id from c order by kind = 'long', kind = 'fresh'),
                           array(select run_lease from c order by kind = 'long', kind = 'fresh'),
                           array(select claim_slot from c order by kind = 'long', kind = 'fresh'),
                           array(select receipt_id from c order by kind = 'long', kind = 'fresh')) as r
    order by r.job_id$$,
  $$select id, outcome::awa.finalize_outcome, state::awa.job_state
    from c join (values ('done', 'stale', null), ('fresh', 'applied', 'completed'), ('long', 'applied', 'completed'))
                as v (kind, outcome, state) using (kind)
    order by id$$,
  'the stale receipt changes nothing; the fresh and the carried attempts complete');

select * from finish();
rollback;
