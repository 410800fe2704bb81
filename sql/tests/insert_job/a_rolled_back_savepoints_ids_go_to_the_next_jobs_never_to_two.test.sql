-- A savepoint rolled back restores the transaction's block setting
-- (awa._next_job_id): the ids its single inserts took from a block drawn
-- before it go to the next inserts, for jobs of their own, and no id ever
-- names two jobs (every row of the rolled-back job went with the
-- savepoint). A block drawn inside a rolled-back savepoint is not drawn
-- again (sequences do not roll back), and the ids that follow stay unique.
-- The ids taken inside a savepoint cross its rollback in psql variables.
begin;
select plan(7);

create temp table ids (what text primary key, id bigint);
insert into ids select 'a', id from awa.insert_job('sp.a', '{}', '{"queue": "sp_ids"}');
savepoint s1;
select id as gone from awa.insert_job('sp.gone', '{}', '{"queue": "sp_ids"}') \gset
rollback to savepoint s1;
insert into ids select 'b', id from awa.insert_job('sp.b', '{}', '{"queue": "sp_ids"}');

select is((select id from ids where what = 'b'), (select id from ids where what = 'a') + 1,
          'after the rollback the next insert takes the block''s next id');
select is((select id from ids where what = 'b'), :gone::bigint,
          'which the rolled-back insert had taken');
select results_eq($$select kind from awa.jobs where id = (select id from ids where what = 'b')$$,
                  $$values ('sp.b')$$, 'that id names one job: the one inserted after the rollback');

savepoint s2;
select min(id) as batch_gone from awa.insert_jobs(array['sp.x', 'sp.x'], null,
                                                  array['{"queue": "sp_ids"}', '{"queue": "sp_ids"}']::jsonb[]) \gset
rollback to savepoint s2;
insert into ids select 'c', id from awa.insert_job('sp.c', '{}', '{"queue": "sp_ids"}');
insert into ids select 'batch', min(id) from awa.insert_jobs(array['sp.y', 'sp.y'], null,
                                                              array['{"queue": "sp_ids"}', '{"queue": "sp_ids"}']::jsonb[]);

select is((select id from ids where what = 'c'), (select id from ids where what = 'b') + 1,
          'a batch rolled back with its savepoint leaves the block setting as it was');
select cmp_ok((select id from ids where what = 'batch'), '>', :batch_gone::bigint + 1,
              'the next batch draws a block above the rolled-back one''s');
select is((select count(*) from awa.jobs where queue = 'sp_ids'), 5::bigint, 'five jobs exist: a, b, c and the batch of two');
select is((select count(distinct id) from awa.jobs where queue = 'sp_ids'), 5::bigint, 'under five distinct ids');

select * from finish();
rollback;
