-- The claim marks are not in the queue ring: queue-ring prune of the slot the
-- claimed jobs came from updates no claim head (no floor raise) and leaves
-- every mark where it is; the lane's cursor is unchanged.
begin;
select plan(5);

select * from awa.configure_queue('qf', '{"enqueue_shards": 1}');
select * from awa.insert_jobs(array['a', 'b'], null, array_fill('{"queue": "qf"}'::jsonb, array[2]));
create temp table c as select * from awa.claim_ready_runtime('qf', 2, null, now());
select * from awa.complete_jobs(array(select id from c order by id), array(select run_lease from c order by id),
                                array(select claim_slot from c order by id), array(select receipt_id from c order by id), now());
create temp table lane as select l.lane_id, (select max(lane_seq) from awa.ready_entries where queue = 'qf') as top
from awa.queue_lanes l where l.queue = 'qf' and l.priority = 2;
select * from awa.rotate_ring('queue', now());

create temp table upd_before as select awa_test.updates_of('queue_claim_heads') as n;
select results_eq($$select outcome, slot from awa.prune_ring('queue')$$, $$values ('pruned'::text, 0)$$,
                  'queue slot 0, where the claimed jobs were, is pruned');
select is(awa_test.updates_of('queue_claim_heads') - (select n from upd_before), 0::bigint,
          'queue-ring prune updated no claim head');
select is((select claim_seq from awa.queue_claim_heads where lane_id = (select lane_id from lane)), 0::bigint,
          'the lane''s floor is still 0');
select results_eq($$select cursor_slot, claim_seq from awa.cursor_marks where lane_id = (select lane_id from lane)$$,
                  $$select 0, top from lane$$, 'the lane''s mark is still in cursor slot 0');
select is((select claim_seq from awa.claim_cursors where lane_id = (select lane_id from lane)), (select top from lane),
          'the cursor is still at the second job''s position');

select * from finish();
rollback;
