-- A sealed lease slot (not the next rotation's) holding the lease of an open
-- attempt keeps the slot. storage_status shows it blocked with the cause
-- live_lease, naming the job and its queue; once the attempt completes the
-- slot is reclaimable.
begin;
select plan(3);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "lease_q"}', now());
select outcome from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 1}');
select is((select outcome from awa.rotate_ring('lease', now())), 'rotated', 'lease slot 0 is sealed (fixture)');

select results_eq(
  $$select role, status, cause, job_id, queue from awa.storage_status() where ring = 'lease' and slot = 0$$,
  $$select 'sealed'::text, 'blocked'::text, 'live_lease'::text, id, 'lease_q'::text from c$$,
  'the lease slot is blocked by the live lease, naming its job and queue');

select outcome from c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id]);
select results_eq(
  $$select status, cause, job_id from awa.storage_status() where ring = 'lease' and slot = 0$$,
  $$values ('reclaimable'::text, null::text, null::bigint)$$,
  'once the attempt is closed the slot is reclaimable');

select * from finish();
rollback;
