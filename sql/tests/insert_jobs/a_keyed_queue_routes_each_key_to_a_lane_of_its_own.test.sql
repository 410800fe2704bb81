-- On a keyed queue each job due now with a key value goes to its key's lane
-- at its priority (one lane per key and priority, created once), and a job
-- without a value to the queue's shard lanes; a queue without a key in the
-- same call keeps its shard lanes.
begin;
select plan(5);

select * from awa.configure_queue('kq', '{"concurrency": {"key": "args.t", "limit": 1}}');
select count(*) from awa.insert_jobs(array['k', 'k', 'k', 'k', 'k', 'k'],
  array['{"t":"a"}', '{"t":"b"}', '{"t":"a"}', '{}', '{"t":"a"}', '{"t":"a"}']::jsonb[],
  array['{"queue":"kq"}', '{"queue":"kq"}', '{"queue":"kq"}', '{"queue":"kq"}', '{"queue":"kq", "priority": 1}',
        '{"queue":"aplain"}']::jsonb[]);

select results_eq($$select key, priority, count(*) from awa.key_lanes where queue = 'kq' group by 1, 2 order by 1, 2$$,
  $$values ('a', 1::smallint, 1::bigint), ('a', 2::smallint, 1::bigint), ('b', 2::smallint, 1::bigint)$$,
  'one lane per key and priority');
select results_eq($$select r.args ->> 't', count(*) from awa.ready_entries r join awa.key_lanes k using (lane_id)
                    group by 1 order by 1$$,
  $$values ('a', 3::bigint), ('b', 1::bigint)$$, 'keyed jobs are in their key lanes');
select is((select count(*) from awa.ready_entries r join awa.queue_lanes l using (lane_id) where l.queue = 'kq'),
  1::bigint, 'the job without a key is in a shard lane');
select is((select available from awa.queue_counts('kq')), 5::bigint, 'queue_counts counts the key lanes for the queue');
select is((select count(*) from awa.ready_entries r join awa.queue_lanes l using (lane_id) where l.queue = 'aplain'),
  1::bigint, 'a queue without a key in the same call keeps its shard lanes');

select * from finish();
rollback;
