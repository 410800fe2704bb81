-- oldest_run_at is the earliest run_at of the jobs counted, not the run_at
-- of the lane's next job: a job due earlier than the one ahead of it in its
-- lane (a retry or scheduled job promoted late) sets it, unless the count
-- limit stops before it.
begin;
select plan(2);

select awa.configure_queue('qf', '{"enqueue_shards": 1}');
select awa.insert_job('k', '{}', '{"queue": "qf", "run_at": "2021-01-01T00:00:00Z"}');
select awa.insert_job('k', '{}', '{"queue": "qf", "run_at": "2020-01-01T00:00:00Z"}');

select is((select oldest_run_at from awa.queue_depths()), '2020-01-01T00:00:00Z'::timestamptz,
  'the second job of the lane, due earlier, is the oldest');
select is((select oldest_run_at from awa.queue_depths(1)), '2021-01-01T00:00:00Z'::timestamptz,
  'with a limit of 1 only the lane''s next job is read');

select * from finish();
rollback;
