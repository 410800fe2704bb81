-- A sealed lease slot older than the newest sealed one (and not yet the slot
-- the next rotation needs) does not wait for its live leases either, as claim
-- slots do not: prune carries them to the current slot and truncates the
-- slot, with the dead leases of closed attempts (parked or finished jobs).
begin;
select plan(4);

select * from awa.insert_jobs(array['open', 'closed', 'closed'], null, array_fill('{"queue": "lq"}'::jsonb, array[3]));
create temp table c as select * from awa.claim_ready_runtime('lq', 3);
select count(*) from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 1}');
select count(*) from c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id])
where c.kind = 'closed';

-- Two rotations, a fresh escalated attempt per turn: slot 0 is older than the
-- newest sealed slot (1) and the next rotation needs slot 3.
do $$
begin
  for i in 1 .. 2 loop
    perform awa.rotate_ring('lease', now());
    perform count(*) from awa_test.claim_one('turn', '{}', '{"queue": "lturn"}', now()) t,
      awa.set_progress(t.id, t.run_lease, t.claim_slot, t.receipt_id, '{}');
  end loop;
end $$;
select is(awa._current_slot('lease'), 2, 'the lease ring stands at slot 2 (fixture)');

select results_eq(
  $$select outcome, slot, detail from awa.prune_ring('lease')$$,
  $$values ('pruned'::text, 0, 'truncated slot 0 after carrying 1 live leases to slot 2'::text)$$,
  'prune carries the live lease out of the older slot 0 and truncates it');
select results_eq(
  $$select l.lease_slot, c.kind from awa.leases l join c on c.id = l.job_id order by 2$$,
  $$values (2, 'open'::text)$$,
  'the open attempt''s lease is in slot 2; the closed attempts'' leases are gone');
select results_eq(
  $$select outcome, slot from awa.prune_ring('lease')$$,
  $$values ('skipped_live'::text, 1)$$,
  'the newest sealed slot 1 still waits for its live lease');

select * from finish();
rollback;
