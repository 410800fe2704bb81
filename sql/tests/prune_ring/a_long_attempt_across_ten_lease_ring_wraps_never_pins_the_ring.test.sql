-- A long attempt reporting progress while the lease and claim rings wrap ten
-- times (short escalated jobs keep each current slot busy; both rings are
-- rotated and pruned every turn): every rotation happens (none is skipped
-- busy), its lease and its claim batch are carried forward, and it finalizes
-- exactly once with the receipt it got at claim time, its progress cleared.
begin;
select plan(6);

create temp table long as select * from awa_test.claim_one('long', '{}', '{"queue": "long_q"}', now());
select outcome from long, awa.set_progress(long.id, long.run_lease, long.claim_slot, long.receipt_id, '{"turn": 0}');
create temp table rotations (ring text, outcome text);
create temp table applied (turn int, outcome text);

do $$
declare
  v_out text;
begin
  for i in 1 .. 80 loop
    perform count(*) from awa_test.claim_one('short', '{}', '{"queue": "short_q"}', now()) t,
      awa.set_progress(t.id, t.run_lease, t.claim_slot, t.receipt_id, '{}'),
      awa.complete_jobs(array[t.id], array[t.run_lease], array[t.claim_slot], array[t.receipt_id]);
    insert into applied select i, s.outcome from long,
      awa.set_progress(long.id, long.run_lease, long.claim_slot, long.receipt_id, jsonb_build_object('turn', i)) s;
    foreach v_out in array array['lease', 'claim'] loop
      perform awa.prune_ring(v_out);
      insert into rotations select v_out, r.outcome from awa.rotate_ring(v_out, now()) r;
    end loop;
  end loop;
end $$;

select is((select count(*) from rotations where ring = 'lease' and outcome = 'rotated'), 80::bigint,
          'the lease ring rotated every turn: 10 wraps');
select is((select count(*) from rotations where ring = 'claim' and outcome = 'rotated'), 80::bigint,
          'the claim ring rotated every turn too');
select is((select count(*) from applied where outcome = 'applied'), 80::bigint,
          'every progress write of the long attempt was applied');
select is((select count(*) from awa.leases where job_id = (select id from long)), 1::bigint,
          'the long attempt has one lease, carried forward');
select results_eq(
  $$select outcome from long, awa.complete_jobs(array[long.id], array[long.run_lease], array[long.claim_slot], array[long.receipt_id])
    union all
    select outcome from long, awa.complete_jobs(array[long.id], array[long.run_lease], array[long.claim_slot], array[long.receipt_id])$$,
  $$values ('applied'::awa.finalize_outcome), ('stale')$$, 'the long attempt completes once with its claim-time receipt');
select is_empty($$select * from awa.job_progress((select id from long))$$, 'its progress is cleared on success');

select * from finish();
rollback;
