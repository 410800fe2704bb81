-- enqueue_shards (default 8) is the number of lanes per priority: the first
-- insert at a (queue, priority) creates that priority's shard lanes (rows
-- only), each with a claim head at 0. Raising it creates the new lanes at the
-- next insert of each priority; lowering it keeps every lane (claimers drain
-- them) and new jobs only use the first shards.
begin;
select plan(9);

select is((select enqueue_shards from awa.configure_queue('fresh', '{"dlq": true}')), 8::smallint,
          'a new queue gets 8 enqueue shards');
select is((select enqueue_shards from awa.configure_queue('sh', '{"enqueue_shards": 2}')), 2::smallint,
          'configure_queue returns the enqueue_shards it stored');

select * from awa.insert_job('k', '{}', '{"queue": "sh"}');
select results_eq($$select priority::int, array_agg(shard order by shard) from awa.queue_lanes
                    where queue = 'sh' group by priority order by priority$$,
                  $$values (2, '{0,1}'::smallint[])$$,
                  'the first insert creates 2 shard lanes of its priority only');
select is((select count(*) from awa.queue_claim_heads h join awa.queue_lanes l using (lane_id)
           where l.queue = 'sh' and h.claim_seq = 0), 2::bigint, 'each lane has a claim head at 0');

select * from awa.insert_job('k', '{}', '{"queue": "dflt"}');
select is((select count(*) from awa.queue_lanes where queue = 'dflt'), 8::bigint,
          'a queue without options gets 8 lanes for the priority it used');

select is((select enqueue_shards from awa.configure_queue('sh', '{"enqueue_shards": 3}')), 3::smallint,
          'enqueue_shards can be raised');
select * from awa.insert_job('k', '{}', '{"queue": "sh", "priority": 4}');
select results_eq($$select priority::int, array_agg(shard order by shard) from awa.queue_lanes
                    where queue = 'sh' group by priority order by priority$$,
                  $$values (2, '{0,1}'::smallint[]), (4, '{0,1,2}')$$,
                  'the next insert creates the 3 shards of its priority');

select * from awa.configure_queue('sh', '{"enqueue_shards": 1}');
select * from awa.insert_jobs(array['a', 'b', 'c'], null, array_fill('{"queue": "sh", "priority": 3}'::jsonb, array[3]));
select is((select count(*) from awa.queue_lanes where queue = 'sh'), 6::bigint,
          'lowering enqueue_shards keeps the lanes (one new lane for priority 3)');
select results_eq($$select l.shard from awa.ready_entries r join awa.queue_lanes l using (lane_id)
                    where r.queue = 'sh' and r.kind in ('a', 'b', 'c')$$,
                  $$values (0::smallint), (0::smallint), (0::smallint)$$,
                  'with one shard, new jobs go to shard 0');

select * from finish();
rollback;
