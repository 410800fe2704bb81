-- A call reserves one position block (1024 positions) per 1024 rows of a lane:
-- 2,500 jobs into one lane take 3 blocks, get strictly increasing positions in
-- input order, and are claimed in that order.
begin;
select plan(4);

select * from awa.configure_queue('blocks', '{"enqueue_shards": 1}');
create temp table j as
select * from awa.insert_jobs(array(select 'k' || g from generate_series(1, 2500) g), null,
                              array_fill('{"queue": "blocks"}'::jsonb, array[2500]));
create temp table pos as
select j.id, row_number() over (order by j.id) as ord, r.lane_seq
from j join awa.ready_entries r on r.job_id = j.id;

select is((select count(distinct lane_seq / 1024) from pos), 3::bigint, 'the rows take 3 position blocks');
select is((select count(*) from (select lane_seq > lag(lane_seq) over (order by ord) as up from pos) s where not up),
          0::bigint, 'positions grow in input order');

create temp table claimed as
select id from awa.claim_ready_runtime('blocks', 1024)
union all select id from awa.claim_ready_runtime('blocks', 1024)
union all select id from awa.claim_ready_runtime('blocks', 1024);
select is((select count(*) from claimed), 2500::bigint, 'three claims take all 2,500 jobs');
select results_eq($$select kind from awa.ready_entries r join claimed c on c.id = r.job_id order by r.lane_seq limit 3$$,
                  $$values ('k1'), ('k2'), ('k3')$$, 'lowest positions first: the first jobs inserted');

select * from finish();
rollback;
