-- args and opts may be NULL as a whole (every job gets {} and the defaults),
-- and a NULL opts element means the defaults for that job.
begin;
select plan(4);

create temp table inserted as select * from awa.insert_jobs(array['x', 'y']);
select is((select count(*) from inserted), 2::bigint, 'insert_jobs(kinds) alone inserts every job');
select results_eq(
  $$select j.args, j.queue, j.priority, j.max_attempts from inserted i join awa.jobs j on j.id = i.id order by i.id$$,
  $$values ('{}'::jsonb, 'default', 2::smallint, 25), ('{}'::jsonb, 'default', 2::smallint, 25)$$,
  'with NULL args and opts every job gets empty args and the default options');

create temp table inserted2 as
select * from awa.insert_jobs(array['x', 'y'], array['{"a": 1}', '{"b": 2}']::jsonb[], array[null, '{"priority": 4}']::jsonb[]);
select results_eq(
  $$select j.args, j.priority from inserted2 i join awa.jobs j on j.id = i.id order by i.id$$,
  $$values ('{"a": 1}'::jsonb, 2::smallint), ('{"b": 2}'::jsonb, 4::smallint)$$,
  'a NULL opts element gets the defaults while its neighbour keeps its opts');

create temp table inserted3 as select * from awa.insert_jobs(array['z'], null, array['{"queue": "nulls"}']::jsonb[]);
select is((select args from awa.jobs where id = (select id from inserted3)), '{}'::jsonb,
  'NULL args with explicit opts gives empty args');

select * from finish();
rollback;
