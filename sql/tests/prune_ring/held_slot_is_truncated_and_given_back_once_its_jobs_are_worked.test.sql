-- A held slot stays out of the rotation while it has available jobs; once
-- every one is worked (claimed and completed) and its proof passes, prune
-- truncates it like any slot and deletes its held row, so rotation takes it
-- again. docs/storage.md, "Held slots".
begin;
select plan(5);

select count(*) from awa.insert_jobs(array_fill('prune.k'::text, array[10000]), null,
                                     array_fill('{"queue": "hq"}'::jsonb, array[10000]));
select * from awa.insert_job('prune.k', '{}', '{"queue": "hq"}');
select * from awa.rotate_ring('queue', now());
select * from awa.prune_ring('queue', 50, 0, 1000);

-- All but one worked: still held.
create temp table c as select * from awa.claim_ready_runtime('hq', 1000, null, now());
do $$
begin
  for i in 2 .. 10 loop
    insert into c select * from awa.claim_ready_runtime('hq', 1000, null, now());
  end loop;
end $$;
select count(*) from awa.complete_jobs(array(select id from c), array(select run_lease from c),
                                       array(select claim_slot from c), array(select receipt_id from c), now());
select results_eq($$select outcome from awa.prune_ring('queue', 50, 0, 1000)$$,
                  $$values ('already_empty'::text)$$, 'with one job waiting, the held slot is left alone');

-- The last one, claimed and still running: the proof fails, still held.
create temp table c2 as select * from awa.claim_ready_runtime('hq', 10, null, now());
select is((select count(*)::int from c2), 1, 'the last job is claimed');
select results_eq($$select ring, slot from awa.ring_held_slots$$, $$values ('queue'::text, 0)$$,
                  'a held slot with a running job stays held');

select count(*) from awa.complete_jobs(array(select id from c2), array(select run_lease from c2),
                                       array(select claim_slot from c2), array(select receipt_id from c2), now());
select results_eq($$select outcome, slot, detail from awa.prune_ring('queue', 50, 0, 1000)$$,
                  $$values ('pruned'::text, 0, 'truncated slot 0'::text)$$,
                  'once its last job completed, the held slot is truncated');
select is((select count(*)::int from awa.ring_held_slots), 0, 'and given back to the rotation');

select * from finish();
rollback;
