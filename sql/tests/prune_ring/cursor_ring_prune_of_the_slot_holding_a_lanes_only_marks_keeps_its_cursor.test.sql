-- A lane's claim marks live in the cursor ring. When prune truncates the
-- cursor slot that holds a lane's newest (here: only) mark, it first raises
-- the lane's floor (queue_claim_heads.claim_seq) to that mark, so the cursor
-- does not fall back: nothing at or below it counts as available or pending
-- again, nothing is claimed twice, and a job above it is still claimed, once.
begin;
select plan(12);

select * from awa.configure_queue('fl', '{"enqueue_shards": 1}');
select * from awa.insert_jobs(array['a', 'b'], null, array_fill('{"queue": "fl"}'::jsonb, array[2]));
create temp table c as select * from awa.claim_ready_runtime('fl', 2, null, now());
select * from awa.complete_jobs(array(select id from c order by id), array(select run_lease from c order by id),
                                array(select claim_slot from c order by id), array(select receipt_id from c order by id), now());
create temp table lane as
select l.lane_id, (select max(r.lane_seq) from awa.ready_entries r where r.queue = 'fl') as top
from awa.queue_lanes l where l.queue = 'fl' and l.priority = 2;

select results_eq($$select cursor_slot, claim_seq from awa.cursor_marks where lane_id = (select lane_id from lane)$$,
                  $$select 0, top from lane$$, 'the lane''s only mark (the second job''s position) is in cursor slot 0 (fixture)');
select is((select claim_seq from awa.queue_claim_heads where lane_id = (select lane_id from lane)), 0::bigint,
          'the floor is still 0: claims do not update it');

select results_eq($$select outcome, slot from awa.rotate_ring('cursor', now())$$, $$values ('rotated'::text, 1)$$,
                  'the cursor ring rotates to slot 1');
create temp table j3 as select * from awa.insert_job('c', '{}', '{"queue": "fl"}');

select results_eq($$select outcome, slot from awa.prune_ring('cursor')$$, $$values ('pruned'::text, 0)$$,
                  'cursor slot 0 is pruned');
select is((select count(*)::int from awa.cursor_marks_0), 0, 'its marks went with it');
select is((select claim_seq from awa.queue_claim_heads where lane_id = (select lane_id from lane)), (select top from lane),
          'the floor was raised to the truncated mark');
select is((select claim_seq from awa.claim_cursors where lane_id = (select lane_id from lane)), (select top from lane),
          'the cursor is still there');
select is((select available from awa.queue_counts('fl')), 1::bigint,
          'queue_counts counts only the job above the cursor as available');
select results_eq($$select id from awa.jobs where queue = 'fl' and state = 'available'$$, $$select id from j3$$,
                  'awa.jobs shows only that job available');
select results_eq($$select id, run_lease from awa.claim_ready_runtime('fl', 10, null, now())$$,
                  $$select id, 1::bigint from j3$$, 'the next claim takes that job, once');
select is_empty($$select * from awa.claim_ready_runtime('fl', 10, null, now())$$, 'and then nothing');
select is((select pending from awa.queue_pending('fl')), false, 'nothing is pending');

select * from finish();
rollback;
