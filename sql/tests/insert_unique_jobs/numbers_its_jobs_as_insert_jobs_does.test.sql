-- insert_unique_jobs numbers its jobs as insert_jobs does (awa._job_ids):
-- a call of several takes a fresh block, job i its (i - 1)th id after the
-- first, a duplicate's id left unused; a call of one (insert_unique_job)
-- takes the next id of the transaction's single-insert block.
begin;
select plan(4);

create temp table o as
select row_number() over () as ord, u.*
from awa.insert_unique_jobs(array['uid.a', 'uid.b', 'uid.a', 'uid.c'], null,
                            array_fill('{"queue": "uid", "unique": {}}'::jsonb, array[4])) as u;
select results_eq($$select id - (select id from o where ord = 1), duplicate from o order by ord$$,
                  $$values (0::bigint, false), (1, false), (0, true), (3, false)$$,
                  'the new jobs take their position''s id in one block; the duplicate is the first job''s');
select is((select id % 1024 from o where ord = 1), 1::bigint, 'the block starts at 1 mod 1,024');

create temp table s (ord int primary key, id bigint);
insert into s select 1, id from awa.insert_job('uid.s', '{}', '{"queue": "uid"}');
insert into s select 2, id from awa.insert_unique_job('uid.d', '{}', '{"queue": "uid", "unique": {}}');
select is((select id from s where ord = 2), (select id from s where ord = 1) + 1,
          'insert_unique_job takes the next id of the transaction''s block');
select is((select count(distinct id) from awa.jobs where queue = 'uid'), 5::bigint, 'five jobs, five distinct ids');

select * from finish();
rollback;
