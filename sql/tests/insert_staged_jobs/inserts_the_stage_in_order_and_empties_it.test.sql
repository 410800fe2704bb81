-- insert_staged_jobs inserts the session's staged jobs in stage order (as
-- insert_jobs would: defaults, options, due now), returns one row per job in
-- that order, and empties the stage, so a second call in the same
-- transaction inserts only what was staged since.
begin;
select plan(5);

select awa.open_job_stage();
insert into pg_temp.awa_job_stage (kind, args, opts) values
  ('a', '{"n": 1}', null),
  ('b', '{"n": 2}', '{"queue": "stq", "priority": 1}'),
  ('c', '{"n": 3}', '{"queue": "stq", "tags": ["x"]}');
insert into pg_temp.awa_job_stage (kind) values ('d');

create temp table got as select row_number() over () as n, * from awa.insert_staged_jobs();
select results_eq($$select kind, queue, priority::int, state::text from got order by n$$,
                  $$values ('a', 'default', 2, 'available'), ('b', 'stq', 1, 'available'),
                           ('c', 'stq', 2, 'available'), ('d', 'default', 2, 'available')$$,
                  'one row per staged job, in stage order, with defaults applied');
select results_eq($$select j.kind, j.args, j.tags from awa.jobs j join got using (id) order by got.n$$,
                  $$values ('a', '{"n": 1}'::jsonb, '{}'::text[]), ('b', '{"n": 2}', '{}'), ('c', '{"n": 3}', '{x}'),
                           ('d', '{}', '{}')$$,
                  'the jobs exist with their args (default {}) and tags');
select ok((select bool_and(a.id < b.id) from got a join got b on b.n = a.n + 1), 'ids follow stage order');
select is((select count(*) from pg_temp.awa_job_stage), 0::bigint, 'the stage is empty afterwards');

insert into pg_temp.awa_job_stage (kind) values ('e');
select results_eq($$select kind from awa.insert_staged_jobs()$$, $$values ('e')$$,
                  'a second call inserts only what was staged since');

select * from finish();
rollback;
