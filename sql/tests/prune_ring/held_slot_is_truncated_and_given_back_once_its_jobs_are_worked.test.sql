-- A held slot stays out of the rotation while more than 1,000 of its jobs
-- wait, or while a job drawn from it runs; then prune carries the rest out,
-- truncates it like any slot and deletes its held row, so rotation takes it
-- again. docs/storage.md, "Held slots".
begin;
select plan(6);

select awa_test.large_backlog('hq', 'prune.k');
select * from awa.prune_ring('queue', 50, 0, 1000);

-- 9,000 worked, 1,001 waiting: still held.
create temp table c as select * from awa.claim_ready_runtime('hq', 1000, null, now());
do $$
begin
  for i in 2 .. 9 loop
    insert into c select * from awa.claim_ready_runtime('hq', 1000, null, now());
  end loop;
end $$;
select count(*) from awa.complete_jobs(array(select id from c), array(select run_lease from c),
                                       array(select claim_slot from c), array(select receipt_id from c), now());
select results_eq($$select outcome from awa.prune_ring('queue', 50, 0, 1000)$$,
                  $$values ('already_empty'::text)$$, 'with 1,001 jobs waiting, the held slot is left alone');

-- One more claimed and still running, 1,000 waiting: the proof fails, still held.
create temp table c2 as select * from awa.claim_ready_runtime('hq', 1, null, now());
select results_eq($$select outcome from awa.prune_ring('queue', 50, 0, 1000)$$,
                  $$values ('already_empty'::text)$$, 'with a job drawn from it running, the held slot is left alone');
select results_eq($$select ring, slot from awa.ring_held_slots$$, $$values ('queue'::text, 0)$$,
                  'and stays held');

select count(*) from awa.complete_jobs(array(select id from c2), array(select run_lease from c2),
                                       array(select claim_slot from c2), array(select receipt_id from c2), now());
create temp table waiting as select job_id from awa.ready_entries_0 order by lane_seq desc limit 1000;
select results_eq($$select outcome, slot, detail from awa.prune_ring('queue', 50, 0, 1000)$$,
                  $$values ('pruned'::text, 0, 'truncated slot 0 after moving 1000 available jobs to slot 1'::text)$$,
                  'once that attempt ended, the last 1,000 jobs are carried out and the held slot is truncated');
select is((select count(*)::int from awa.ring_held_slots), 0, 'and given back to the rotation');
select set_eq($$select job_id from awa.ready_entries_1$$, $$select job_id from waiting$$,
              'the 1,000 waiting jobs are in the current slot');

select * from finish();
rollback;
