-- A claim slot holding an open claim (a receipt without closure) that is
-- not the one the next rotation needs keeps the slot. storage_status shows it
-- blocked with the cause open_claim, naming the claimed job and its queue;
-- once the attempt completes the slot is reclaimable.
begin;
select plan(3);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "claim_q"}', now());
select is((select outcome from awa.rotate_ring('claim', now())), 'rotated', 'claim slot 0 is sealed (fixture)');

select results_eq(
  $$select role, status, cause, job_id, queue from awa.storage_status() where ring = 'claim' and slot = 0$$,
  $$select 'sealed'::text, 'blocked'::text, 'open_claim'::text, id, 'claim_q'::text from c$$,
  'the claim slot is blocked by the open claim, naming its job and queue');
select is((select detail from awa.storage_status() where ring = 'claim' and slot = 0),
          (select detail from awa.prune_ring('claim')),
          'its detail is what prune reports for the slot');

select outcome from c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id]);
select * from finish();
rollback;
