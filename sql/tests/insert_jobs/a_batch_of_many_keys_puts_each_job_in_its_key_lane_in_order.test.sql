-- A batch with many distinct keys, interleaved (500 keys of one job to three,
-- a key of 2,000 jobs across position blocks, jobs without a key, two
-- priorities): every keyed job lands in its key's lane at its priority, in
-- input order within the lane; every key lane is listed as active; jobs
-- without a key take the shard lanes.
begin;
select plan(7);

select * from awa.configure_queue('mk', '{"concurrency": {"key": "args.t", "limit": 2}}');
create temp table mk_in as
select i,
       case when i % 7 = 0 then '{}'::jsonb
            when i % 3 = 0 then jsonb_build_object('t', 'big')
            else jsonb_build_object('t', 'k' || (i % 500)) end as args,
       jsonb_build_object('queue', 'mk', 'priority', 1 + (i % 11 = 0)::int) as opts
from generate_series(1, 7000) as i;
create temp table mk_out as
select j.*, x.i
from awa.insert_jobs(array(select 'k'::text from mk_in order by i), array(select args from mk_in order by i),
                     array(select opts from mk_in order by i)) with ordinality as j
join mk_in x on x.i = j.ordinality;

select is((select count(*) from mk_out), 7000::bigint, 'every job inserted');
select is((select count(*) from awa.key_lanes where queue = 'mk'),
          (select count(distinct (args ->> 't', opts ->> 'priority')) from mk_in where args ? 't'),
          'one lane per key and priority');
select is((select count(*) from mk_out o join awa.ready_entries r on r.job_id = o.id
           join awa.key_lanes k on k.lane_id = r.lane_id
           join mk_in x on x.i = o.i
           where k.key = x.args ->> 't' and k.priority = (x.opts ->> 'priority')::smallint),
          (select count(*) from mk_in where args ? 't'),
          'every keyed job is in the lane of its key and priority');
select is((select count(*) from (
             select o.i, lag(o.i) over (partition by r.lane_id order by r.lane_seq) as prev
             from mk_out o join awa.ready_entries r on r.job_id = o.id) as s
           where s.prev > s.i),
          0::bigint, 'within each lane, positions follow input order');
select cmp_ok((select count(*) from mk_out o join awa.ready_entries r on r.job_id = o.id
               join awa.key_lanes k on k.lane_id = r.lane_id where k.key = 'big' and k.priority = 1),
              '>', 1024::bigint, 'the big key spans more than one position block');
select is((select count(*) from awa.active_key_lanes a join awa.key_lanes k using (lane_id) where k.queue = 'mk'),
          (select count(*) from awa.key_lanes where queue = 'mk'), 'every key lane is listed as active');
select is((select count(*) from mk_out o join awa.ready_entries r on r.job_id = o.id
           join awa.queue_lanes l on l.lane_id = r.lane_id where l.queue = 'mk'),
          (select count(*) from mk_in where not args ? 't'), 'jobs without a key take the shard lanes');

select * from finish();
rollback;
