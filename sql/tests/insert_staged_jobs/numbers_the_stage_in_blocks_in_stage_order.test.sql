-- The COPY path numbers its jobs as insert_jobs does: 2,100 staged jobs take
-- three blocks of awa.job_id_seq, ids ascending in stage order.
begin;
select plan(3);

select awa.open_job_stage();
insert into pg_temp.awa_job_stage (kind, args, opts)
select 'stg.k', jsonb_build_object('i', g), '{"queue": "stg_ids"}' from generate_series(1, 2100) g;
create temp table ins as select row_number() over () as ord, s.id from awa.insert_staged_jobs() as s;

select results_eq($$select (ord - 1) / 1024 as blk, count(*), max(id) - min(id), min(id) % 1024
                    from ins group by 1 order by 1$$,
                  $$values (0::bigint, 1024::bigint, 1023::bigint, 1::bigint), (1, 1024, 1023, 1), (2, 52, 51, 1)$$,
                  'three blocks of 1,024, 1,024 and 52 jobs, each dense from a block''s first id');
select ok((select bool_and(id > prev) from (select id, lag(id) over (order by ord) as prev from ins) x where prev is not null),
          'ids ascend in stage order');
select is((select count(*) from ins i join awa.jobs j on j.id = i.id and j.args = jsonb_build_object('i', i.ord)),
          2100::bigint, 'each staged job is stored under its id');

select * from finish();
rollback;
