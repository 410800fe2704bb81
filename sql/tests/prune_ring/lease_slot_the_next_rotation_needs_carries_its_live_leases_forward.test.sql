-- When the sealed lease slot is the one the next rotation needs, the leases
-- of open attempts do not keep it: prune copies them into the current slot
-- (every column but lease_slot kept) and truncates the slot; the leases of
-- closed attempts go with it. The carried attempt then still writes its
-- progress (no second lease) and completes once.
begin;
select plan(6);

select * from awa.insert_jobs(array['open', 'closed'], null, array_fill('{"queue": "lq"}'::jsonb, array[2]));
create temp table c as select * from awa.claim_ready_runtime('lq', 2);
select count(*) from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 1}');
select count(*) from c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id])
where c.kind = 'closed';
create temp table lease_before as select * from awa.leases where job_id = (select id from c where kind = 'open');

-- Seven rotations: slot 0 becomes the slot the next rotation needs. A fresh
-- escalated attempt per turn keeps each current slot non-empty.
do $$
begin
  for i in 1 .. 7 loop
    perform awa.rotate_ring('lease', now());
    perform count(*) from awa_test.claim_one('turn', '{}', '{"queue": "lturn"}', now()) t,
      awa.set_progress(t.id, t.run_lease, t.claim_slot, t.receipt_id, '{}');
  end loop;
end $$;
select is(awa._current_slot('lease'), 7, 'the lease ring stands at slot 7 (fixture)');

select results_eq(
  $$select outcome, slot, detail from awa.prune_ring('lease')$$,
  $$values ('pruned'::text, 0, 'truncated slot 0 after carrying 1 live leases to slot 7'::text)$$,
  'prune carries the live lease and truncates slot 0');
select results_eq(
  $$select lease_slot, job_id, run_lease, claim_slot, receipt_id, queue, created_at from awa.leases
    where job_id in (select id from c)$$,
  $$select 7, job_id, run_lease, claim_slot, receipt_id, queue, created_at from lease_before$$,
  'the open attempt''s lease is in slot 7, unchanged; the closed one''s is gone');
select is((select outcome from awa.rotate_ring('lease', now())), 'rotated', 'the ring rotates into slot 0');

create temp table counts_before as select count(*) as n from awa.leases;
select is((select outcome from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 2}')
           where c.kind = 'open') || '/' || ((select count(*) from awa.leases) - (select n from counts_before)),
          'applied/0', 'the carried attempt writes its progress without a second lease');
select results_eq(
  $$select outcome from c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id])
    where c.kind = 'open'
    union all
    select outcome from c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id])
    where c.kind = 'open'$$,
  $$values ('applied'::awa.finalize_outcome), ('stale')$$, 'the attempt completes once');

select * from finish();
rollback;
