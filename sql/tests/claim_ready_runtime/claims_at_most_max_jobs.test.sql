-- A claim never returns more than max jobs, and returns fewer when fewer are
-- available; max 1024 (the upper bound) is accepted.
begin;
select plan(5);

select * from awa.insert_jobs(array_fill('k'::text, array[5]), null, array_fill('{"queue": "maxq"}'::jsonb, array[5]));

select is((select count(*) from awa.claim_ready_runtime('maxq', 2, null, '2030-01-01 12:00:00+00')), 2::bigint,
  'max 2 claims exactly 2 of 5 jobs');
select is((select count(*) from awa.claim_ready_runtime('maxq', 1, null, '2030-01-01 12:00:01+00')), 1::bigint,
  'max 1 (the default lower bound) claims 1');
select is((select count(*) from awa.claim_ready_runtime('maxq', 1024, null, '2030-01-01 12:00:02+00')), 2::bigint,
  'max 1024 claims only the 2 jobs left');
select is((select count(*) from awa.jobs where queue = 'maxq' and state = 'running'), 5::bigint,
  'all 5 jobs are running now');
select is((select count(*) from awa.claim_ready_runtime('maxq')), 0::bigint,
  'the default max (1) on an exhausted queue returns nothing');

select * from finish();
rollback;
