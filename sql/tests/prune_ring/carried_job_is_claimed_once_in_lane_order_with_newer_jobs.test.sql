-- Jobs carried out of a sealed slot keep their lane positions, so a lane
-- whose rows now sit in one slot (carried, older) and came from producers
-- into the current slot (newer) is claimed in position order, each job once,
-- and each completes once.
begin;
select plan(4);

-- One transaction: every insert goes to the same shard lane of (nq, 2).
create temp table j as select * from awa.insert_jobs(array_fill('prune.k'::text, array[3]), null,
                                                      array_fill('{"queue": "nq"}'::jsonb, array[3]));
select * from awa.rotate_ring('queue', now());
insert into j select * from awa.insert_jobs(array_fill('prune.k'::text, array[2]), null,
                                            array_fill('{"queue": "nq"}'::jsonb, array[2]));
select is(awa._current_slot('queue'), 1, 'setup: 3 jobs in sealed slot 0, 2 newer ones in current slot 1');
select is((select outcome from awa.prune_ring('queue')), 'pruned', 'slot 0 is pruned after its 3 jobs moved');

create temp table c as select * from awa.claim_ready_runtime('nq', 10, null, now());
select results_eq($$select id from c$$, $$select id from j order by id$$,
                  'one claim returns all five, oldest first (lane order)');
select results_eq(
  $$select count(*)::int, count(*) filter (where outcome = 'applied')::int
    from awa.complete_jobs(array(select id from c), array(select run_lease from c),
                           array(select claim_slot from c), array(select receipt_id from c), now())$$,
  $$values (5, 5)$$, 'each completes once');

select * from finish();
rollback;
