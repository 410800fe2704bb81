-- Queues are rows, not objects: jobs into 40 new queues at every priority
-- create no relation in schema awa (lanes draw positions from the pool of
-- sequences the install created); each (queue, priority) used gets its shard
-- lanes as queue_lanes rows with claim heads, and nothing for priorities it
-- never used.
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
select is((select count(*) from awa.queue_lanes where queue like 'cheap\_%'), (40 * 4 * 8 + 8)::bigint,
          'each (queue, priority) used has its 8 shard lanes, as rows');
select is((select count(*) from awa.queue_claim_heads h join awa.queue_lanes l using (lane_id)
           where l.queue like 'cheap\_%' and h.claim_seq = 0), (40 * 4 * 8 + 8)::bigint,
          'each lane has a claim head at 0');
select results_eq($$select distinct priority::int from awa.queue_lanes where queue = 'cheap_one'$$,
                  $$values (3)$$, 'a queue used at one priority has lanes of that priority only');

select * from finish();
rollback;
