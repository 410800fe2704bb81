-- A member of awa_producer enqueues by every path: awa.insert_job (a new
-- queue too: no CREATE on schema awa), awa.insert_jobs, and the COPY stage
-- (awa.open_job_stage, COPY into pg_temp.awa_job_stage, awa.insert_staged_jobs).
begin;
select plan(6);

select is(has_schema_privilege('awa_producer', 'awa', 'CREATE'), false, 'awa_producer has no CREATE on schema awa');

set local role awa_test_producer;
select is((select count(*) from awa.insert_job('p.single', '{}', '{"queue": "producer_new_q"}')), 1::bigint,
          'insert_job inserts one job, into a queue that did not exist');
select is((select count(*) from awa.insert_jobs(array['p.batch', 'p.batch'], null, null)), 2::bigint,
          'insert_jobs inserts a batch');
select lives_ok($$select awa.open_job_stage()$$, 'open_job_stage opens the stage');
copy pg_temp.awa_job_stage (kind, args, opts) from stdin;
p.copied	{"n": 1}	\N
p.copied	{"n": 2}	{"queue": "producer_new_q"}
\.
select is((select count(*) from awa.insert_staged_jobs()), 2::bigint, 'insert_staged_jobs inserts the COPY-staged jobs');
reset role;

select results_eq(
  $$select kind, count(*) from awa.jobs where kind like 'p.%' and state = 'available' group by kind order by kind$$,
  $$values ('p.batch'::text, 2::bigint), ('p.copied', 2), ('p.single', 1)$$,
  'every job the producer inserted is available');

select * from finish();
rollback;
