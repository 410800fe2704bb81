-- Jobs of one priority in several enqueue-shard lanes: a claim takes them all,
-- FIFO within each lane, and the lane visited first rotates, so one shard's
-- backlog never starves another. Jobs are placed in shards 3 and 5 through the
-- per-transaction shard setting awa._append_ready keeps
-- (awa.enqueue_shard_<first lane_id>); a single session always has the
-- shard locks free. Producers add shard lanes only when the existing ones are
-- held, so the fixture adds shards 0 to 5 first (awa._add_lane).
begin;
select plan(5);

select count(*) from (select awa._add_lane('sh', 2::smallint, 8) from generate_series(1, 6)) as a;
select * from awa.insert_job('warm', '{}', '{"queue": "sh"}');
select * from awa.claim_ready_runtime('sh', 1);
create temp table lane0 as
  select 'awa.enqueue_shard_' || lane_id as setting from awa.queue_lanes where queue = 'sh' and priority = 2 and shard = 0;

select set_config((select setting from lane0), '3', true);
select * from awa.insert_jobs(array['a1', 'a2'], null, array_fill('{"queue": "sh"}'::jsonb, array[2]));
select set_config((select setting from lane0), '5', true);
select * from awa.insert_jobs(array['b1', 'b2'], null, array_fill('{"queue": "sh"}'::jsonb, array[2]));

select results_eq($$select l.shard::int, array_agg(r.kind order by r.lane_seq) from awa.ready_entries r
                    join awa.queue_lanes l using (lane_id) where r.kind <> 'warm' group by l.shard order by l.shard$$,
                  $$values (3, array['a1', 'a2']), (5, array['b1', 'b2'])$$,
                  'setup: a1, a2 in shard 3 and b1, b2 in shard 5');

create temp table got as select row_number() over () as n, kind from awa.claim_ready_runtime('sh', 10);
select is((select count(*) from got), 4::bigint, 'one claim takes the jobs of both lanes');
select ok((select min(n) filter (where kind = 'a1') < min(n) filter (where kind = 'a2')
              and min(n) filter (where kind = 'b1') < min(n) filter (where kind = 'b2') from got),
          'FIFO within each lane');

-- 100 jobs in each of the two lanes, then 100 claims of one job: the first
-- lane visited starts at a random shard, so each lane is drawn from (the
-- chance that shard 5 is never first is 0.75^100).
select set_config((select setting from lane0), '3', true);
select * from awa.insert_jobs(array_fill('x3'::text, array[100]), null, array_fill('{"queue": "sh"}'::jsonb, array[100]));
select set_config((select setting from lane0), '5', true);
select * from awa.insert_jobs(array_fill('x5'::text, array[100]), null, array_fill('{"queue": "sh"}'::jsonb, array[100]));
create temp table drawn (kind text);
do $$ begin
  for i in 1 .. 100 loop
    insert into drawn select kind from awa.claim_ready_runtime('sh', 1);
  end loop;
end $$;
select is((select count(*) from drawn), 100::bigint, '100 claims of one job each get a job');
select ok((select count(*) filter (where kind = 'x3') > 0 and count(*) filter (where kind = 'x5') > 0 from drawn),
          'both lanes were drawn from');

select * from finish();
rollback;
