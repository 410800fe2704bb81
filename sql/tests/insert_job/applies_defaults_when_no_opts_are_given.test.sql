-- Without opts a job goes to queue 'default' at priority 2 with 25 attempts,
-- no tags and empty metadata; NULL opts and {} mean the same.
begin;
select plan(6);

create temp table inserted as
select 'omitted' as how, * from awa.insert_job('noop')
union all
select 'empty', * from awa.insert_job('noop', '{}', '{}')
union all
select 'null', * from awa.insert_job('noop', '{"a": 1}', null);

select results_eq(
  $$select queue, priority, state from inserted order by how$$,
  $$values ('default', 2::smallint, 'available'::awa.job_state),
           ('default', 2::smallint, 'available'::awa.job_state),
           ('default', 2::smallint, 'available'::awa.job_state)$$,
  'insert_job returns queue default, priority 2, state available whatever the form of empty opts');

select is((select count(*) from awa.jobs j join inserted i on i.id = j.id), 3::bigint,
  'all three jobs are stored');
select is((select array_agg(distinct j.max_attempts) from awa.jobs j join inserted i on i.id = j.id), array[25],
  'max_attempts defaults to 25');
select ok((select bool_and(j.tags = '{}'::text[]) from awa.jobs j join inserted i on i.id = j.id),
  'tags default to an empty array');
select is((select array_agg(distinct j.metadata) from awa.jobs j join inserted i on i.id = j.id), array['{}'::jsonb],
  'metadata defaults to an empty object');
select is((select args from awa.jobs where id = (select id from inserted where how = 'omitted')), '{}'::jsonb,
  'args default to an empty object');

select * from finish();
rollback;
