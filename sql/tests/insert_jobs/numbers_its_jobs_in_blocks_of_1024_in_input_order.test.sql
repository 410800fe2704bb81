-- A call of 2,500 jobs takes three blocks of awa.job_id_seq (awa._job_ids),
-- each starting at 1 mod 1,024, in increasing order: jobs 1-1,024 get the
-- first block's ids, 1,025-2,048 the second's, 2,049-2,500 the third's, so
-- ids ascend in input order; every job is stored under its id.
begin;
select plan(5);

create temp table ins as
select row_number() over () as ord, i.id
from awa.insert_jobs(array_fill('blk3.k'::text, array[2500]),
                     array(select jsonb_build_object('i', g) from generate_series(1, 2500) g),
                     array_fill('{"queue": "blk3"}'::jsonb, array[2500])) as i;

select results_eq($$select (ord - 1) / 1024 as blk, count(*), max(id) - min(id), min(id) % 1024
                    from ins group by 1 order by 1$$,
                  $$values (0::bigint, 1024::bigint, 1023::bigint, 1::bigint),
                           (1, 1024, 1023, 1), (2, 452, 451, 1)$$,
                  'three blocks: 1,024, 1,024 and 452 jobs, each dense from a block''s first id');
select ok((select bool_and(id = prev + 1 or (ord - 1) % 1024 = 0)
           from (select ord, id, lag(id) over (order by ord) as prev from ins) x where prev is not null),
          'within a block, each job''s id follows the previous job''s');
select ok((select bool_and(id > prev) from (select id, lag(id) over (order by ord) as prev from ins) x where prev is not null),
          'ids ascend in input order');
select is((select count(distinct id) from ins), 2500::bigint, 'every id is distinct');
select is((select count(*) from ins i join awa.jobs j on j.id = i.id and j.args = jsonb_build_object('i', i.ord)),
          2500::bigint, 'each job is stored under its id');

select * from finish();
rollback;
