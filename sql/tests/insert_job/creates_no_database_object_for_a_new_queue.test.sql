-- Queues are rows, not objects: jobs into 40 new queues at every priority
-- create no relation in schema awa (lanes draw positions from the pool of
-- sequences the install created); a new queue gets one lane per priority
-- (shard 0; more only when concurrent producers hold it), each a queue_lanes
-- row with a claim head.
begin;
select plan(4);

create temp table rels_before as
select count(*) as n from pg_class where relnamespace = 'awa'::regnamespace;

select * from awa.insert_jobs(array(select 'k' from generate_series(1, 40 * 4)), null,
  array(select jsonb_build_object('queue', 'cheap_' || q, 'priority', p)
        from generate_series(1, 40) q, generate_series(1, 4) p));
select * from awa.insert_job('k', '{}', '{"queue": "cheap_one", "priority": 3}');

select is((select count(*) from pg_class where relnamespace = 'awa'::regnamespace), (select n from rels_before),
          'no relation is created for 41 new queues');
select is((select count(*) from awa.queue_lanes where queue like 'cheap\_%'), (41 * 4)::bigint,
          'each queue has one lane per priority, a row');
select is((select count(*) from awa.queue_claim_heads h join awa.queue_lanes l using (lane_id)
           where l.queue like 'cheap\_%' and h.claim_seq = 0), (41 * 4)::bigint,
          'each lane has a claim head at 0');
select results_eq($$select priority::int, shard::int from awa.queue_lanes where queue = 'cheap_one' order by 1$$,
                  $$values (1, 0), (2, 0), (3, 0), (4, 0)$$, 'a queue used at one priority has shard 0 of each');

select * from finish();
rollback;
