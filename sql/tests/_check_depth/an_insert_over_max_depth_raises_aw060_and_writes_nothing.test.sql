-- A producer's insert of available jobs that would take a queue with a
-- max_depth above it raises AW060 and writes nothing, on every insert path;
-- claimed jobs free room; scheduled jobs, promotions and other queues are
-- not limited.
begin;
select plan(14);

select * from awa.configure_queue('dq', '{"max_depth": 4}');
select is((select count(*) from awa.insert_jobs(array_fill('k'::text, array[3]), null, array_fill('{"queue":"dq"}'::jsonb, array[3]))),
  3::bigint, 'a batch within max_depth is inserted');
select * from awa_test.raises_writing_nothing($$select * from awa.insert_jobs(array['k', 'k'], null, array['{"queue":"dq"}', '{"queue":"dq"}']::jsonb[])$$,
  'AW060', 'awa: queue ''dq'' is full: adding 2 jobs to 3 or more available would pass its max_depth 4',
  'a batch that would pass max_depth raises AW060');
select lives_ok($$select * from awa.insert_job('k', '{}', '{"queue":"dq"}')$$, 'one job up to max_depth is inserted');
select * from awa_test.raises_writing_nothing($$select * from awa.insert_job('k', '{}', '{"queue":"dq"}')$$,
  'AW060', 'awa: queue ''dq'' is full: adding 1 jobs to 4 or more available would pass its max_depth 4',
  'insert_job into a full queue raises AW060');
select * from awa_test.raises_writing_nothing($$select * from awa.insert_unique_job('k', '{}', '{"queue":"dq", "unique": {"key": "u"}}')$$,
  'AW060', 'awa: queue ''dq'' is full: adding 1 jobs to 4 or more available would pass its max_depth 4',
  'insert_unique_job into a full queue raises AW060');
select * from awa_test.raises_writing_nothing($$select * from awa.insert_jobs(array['k', 'k'], null, array['{"queue":"dq", "run_at": "2100-01-01T00:00:00Z"}', '{"queue":"dq"}']::jsonb[])$$,
  'AW060', 'awa: queue ''dq'' is full: adding 1 jobs to 4 or more available would pass its max_depth 4',
  'a batch with a scheduled job and one due now into a full queue raises AW060');
select lives_ok($$select * from awa.insert_job('k', '{}', '{"queue":"dq", "run_at": "2100-01-01T00:00:00Z"}')$$,
  'a scheduled job is not refused');
select lives_ok($$select * from awa.insert_job('k', '{}', '{"queue":"other"}')$$, 'another queue is not limited');
select is((select count(*) from awa.claim_ready_runtime('dq', 2)), 2::bigint, 'a claim takes two');
select lives_ok($$select * from awa.insert_jobs(array['k', 'k'], null, array['{"queue":"dq"}', '{"queue":"dq"}']::jsonb[])$$,
  'claimed jobs free room for as many');

select * from finish();
rollback;
