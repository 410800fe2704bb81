-- A sealed claim slot holding a receipt without closure evidence, and that is
-- not the slot the next rotation needs, is not pruned.
begin;
select plan(3);

select * from awa.insert_job('prune.k', '{}', '{"queue": "nq"}');
create temp table c as select * from awa.claim_ready_runtime('nq', 1, null, now());
select * from awa.rotate_ring('claim', now());

create temp table p as select * from awa.prune_ring('claim');

select results_eq(
  $$select ring, outcome, slot, generation from p$$,
  $$values ('claim'::text, 'skipped_live'::text, 0, 1::bigint)$$,
  'the sealed claim slot 0 with an open claim is skipped_live');

select is((select detail from p),
          format('claim slot 0 has an open claim (batch %s of queue nq claimed at %s)', (select receipt_id >> 10 from c), now()),
          'the detail names the open batch');

select is((select count(*)::int from awa.claim_batches_0), 1, 'the claim batch is kept');

select * from finish();
rollback;
