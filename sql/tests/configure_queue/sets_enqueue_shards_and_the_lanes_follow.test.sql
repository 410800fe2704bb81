-- enqueue_shards (default 8) caps the lanes per priority. A queue's first
-- insert creates the shard 0 lane of every priority (rows, each with a claim
-- head at 0); producers add further shards (awa._add_lane) only while every existing
-- one is held, never beyond enqueue_shards. Lowering it keeps every lane
-- (claimers drain them) and new jobs only use the first shards.
begin;
select plan(9);

select is((select enqueue_shards from awa.configure_queue('fresh', '{"dlq": true}')), 8::smallint,
          'a new queue gets 8 enqueue shards');
select is((select enqueue_shards from awa.configure_queue('sh', '{"enqueue_shards": 2}')), 2::smallint,
          'configure_queue returns the enqueue_shards it stored');

select * from awa.insert_job('k', '{}', '{"queue": "sh"}');
select results_eq($$select priority::int, array_agg(shard order by shard) from awa.queue_lanes
                    where queue = 'sh' group by priority order by priority$$,
                  $$values (1, '{0}'::smallint[]), (2, '{0}'), (3, '{0}'), (4, '{0}')$$,
                  'the first insert creates shard 0 of every priority');
select is((select count(*) from awa.queue_claim_heads h join awa.queue_lanes l using (lane_id)
           where l.queue = 'sh' and h.claim_seq = 0), 4::bigint, 'each lane has a claim head at 0');

select results_eq($$select a.id is not null from awa._add_lane('sh', 2::smallint, 2) as a
                    union all select a.id is not null from awa._add_lane('sh', 2::smallint, 2) as a$$,
                  $$values (true), (false)$$, 'a second shard can be added, a third cannot (enqueue_shards 2)');

select is((select enqueue_shards from awa.configure_queue('sh', '{"enqueue_shards": 3}')), 3::smallint,
          'enqueue_shards can be raised');
select count(*) from (select awa._add_lane('sh', 4::smallint, 3) from generate_series(1, 3)) as a;
select results_eq($$select priority::int, array_agg(shard order by shard) from awa.queue_lanes
                    where queue = 'sh' group by priority order by priority$$,
                  $$values (1, '{0}'::smallint[]), (2, '{0,1}'), (3, '{0}'), (4, '{0,1,2}')$$,
                  'then up to 3 shards can exist per priority');

select * from awa.configure_queue('sh', '{"enqueue_shards": 1}');
select * from awa.insert_jobs(array['a', 'b', 'c'], null, array_fill('{"queue": "sh", "priority": 2}'::jsonb, array[3]));
select is((select count(*) from awa.queue_lanes where queue = 'sh'), 7::bigint,
          'lowering enqueue_shards keeps the lanes');
select results_eq($$select l.shard from awa.ready_entries r join awa.queue_lanes l using (lane_id)
                    where r.queue = 'sh' and r.kind in ('a', 'b', 'c')$$,
                  $$values (0::smallint), (0::smallint), (0::smallint)$$,
                  'with one shard, new jobs go to shard 0');

select * from finish();
rollback;
