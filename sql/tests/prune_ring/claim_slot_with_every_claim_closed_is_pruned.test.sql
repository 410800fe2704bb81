-- Once every receipt of a sealed claim slot is closed, prune truncates the
-- claim slot's children; a batch only partly closed still blocks it.
begin;
select plan(6);

select * from awa.insert_jobs(array['prune.k', 'prune.k'], null, array['{"queue": "nq"}', '{"queue": "nq"}']::jsonb[]);
create temp table c as select * from awa.claim_ready_runtime('nq', 2, null, now());
select * from awa.rotate_ring('claim', now());

select * from awa.complete_jobs(array[(select id from c order by receipt_id limit 1)],
                                array[(select run_lease from c order by receipt_id limit 1)],
                                array[(select claim_slot from c order by receipt_id limit 1)],
                                array[(select receipt_id from c order by receipt_id limit 1)], now());

select is((select outcome from awa.prune_ring('claim')), 'skipped_live',
          'a claim batch with one of two receipts closed still blocks prune');

select * from awa.cancel_jobs(array[(select id from c order by receipt_id offset 1)],
                              array[(select run_lease from c order by receipt_id offset 1)],
                              array[(select claim_slot from c order by receipt_id offset 1)],
                              array[(select receipt_id from c order by receipt_id offset 1)], null, now());

select results_eq(
  $$select ring, outcome, slot, detail from awa.prune_ring('claim')$$,
  $$values ('claim'::text, 'pruned'::text, 0, 'truncated slot 0'::text)$$,
  'with every receipt closed the claim slot 0 is pruned');

select is((select count(*)::int from awa.claim_batches_0), 0, 'awa.claim_batches_0 is empty');
select is((select count(*)::int from awa.claim_closures_0), 0, 'awa.claim_closures_0 is empty');

select results_eq(
  $$select state from awa.jobs order by id$$,
  $$values ('completed'::awa.job_state), ('cancelled'::awa.job_state)$$,
  'the finished jobs keep their terminal history in the queue ring');

select results_eq(
  $$select job_id, outcome from awa.complete_jobs(array[(select id from c order by receipt_id limit 1)],
                                                  array[(select run_lease from c order by receipt_id limit 1)],
                                                  array[(select claim_slot from c order by receipt_id limit 1)],
                                                  array[(select receipt_id from c order by receipt_id limit 1)], now())$$,
  $$select id, 'stale'::awa.finalize_outcome from c order by receipt_id limit 1$$,
  'a finalizer presenting a receipt of the pruned claim slot is stale');

select * from finish();
rollback;
