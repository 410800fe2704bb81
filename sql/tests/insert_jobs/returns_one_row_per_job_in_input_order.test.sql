-- insert_jobs returns one row per job, in input order, with ascending ids,
-- whatever queue, priority or state each job ends in.
begin;
select plan(4);

create temp table inserted as
select row_number() over () as ord, * from awa.insert_jobs(
  array['k1', 'k2', 'k3', 'k4', 'k5'],
  array['{"n": 1}', '{"n": 2}', '{"n": 3}', '{"n": 4}', '{"n": 5}']::jsonb[],
  array['{"queue": "b", "priority": 4}', '{"queue": "a", "priority": 1}', null,
        jsonb_build_object('run_at', now() + interval '1 day'), '{"queue": "a", "priority": 3}']::jsonb[]);

select is((select count(*) from inserted), 5::bigint, 'returns one row per job');
select results_eq(
  $$select kind, queue, priority, state from inserted order by ord$$,
  $$values ('k1', 'b', 4::smallint, 'available'::awa.job_state),
           ('k2', 'a', 1::smallint, 'available'::awa.job_state),
           ('k3', 'default', 2::smallint, 'available'::awa.job_state),
           ('k4', 'default', 2::smallint, 'scheduled'::awa.job_state),
           ('k5', 'a', 3::smallint, 'available'::awa.job_state)$$,
  'rows come back in input order with each job''s queue, priority and state');
select ok((select bool_and(id > prev) from (select id, lag(id) over (order by ord) as prev from inserted) x where prev is not null),
  'ids ascend in input order');
select results_eq(
  $$select j.args from inserted i join awa.jobs j on j.id = i.id order by i.ord$$,
  $$values ('{"n": 1}'::jsonb), ('{"n": 2}'::jsonb), ('{"n": 3}'::jsonb), ('{"n": 4}'::jsonb), ('{"n": 5}'::jsonb)$$,
  'job i is stored with args[i]');

select * from finish();
rollback;
