-- Floors only grow: a lane whose floor is already above its newest mark in
-- the slot cursor-ring prune truncates keeps that floor (no update), and its
-- cursor stays the floor.
begin;
select plan(3);

select * from awa.configure_queue('nl', '{"enqueue_shards": 1}');
select * from awa.insert_jobs(array['a', 'b'], null, array_fill('{"queue": "nl"}'::jsonb, array[2]));
create temp table c as select * from awa.claim_ready_runtime('nl', 1, null, now());
create temp table lane as select l.lane_id from awa.queue_lanes l where l.queue = 'nl' and l.priority = 2;
-- A floor above the lane's only mark (the first job's position), as if
-- raised earlier (fixture): the second job's position.
update awa.queue_claim_heads set claim_seq = (select max(lane_seq) from awa.ready_entries where queue = 'nl')
where lane_id = (select lane_id from lane);
select * from awa.rotate_ring('cursor', now());

create temp table upd_before as select awa_test.updates_of('queue_claim_heads') as n;
select results_eq($$select outcome, slot from awa.prune_ring('cursor')$$, $$values ('pruned'::text, 0)$$,
                  'cursor slot 0 is pruned');
select is(awa_test.updates_of('queue_claim_heads') - (select n from upd_before), 0::bigint,
          'no claim head was updated');
select is((select claim_seq from awa.claim_cursors where lane_id = (select lane_id from lane)),
          (select max(lane_seq) from awa.ready_entries where queue = 'nl'),
          'the floor (and cursor) stays there, above the truncated mark');

select * from finish();
rollback;
