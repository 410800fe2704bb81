-- A claim takes a job out of the depth and moves oldest_run_at to the next
-- job of the lane; a paused queue is reported paused; a queue whose jobs were
-- all claimed reports 0 and no oldest_run_at.
begin;
select plan(5);

select awa.configure_queue('qe', '{"enqueue_shards": 1}');
select awa.insert_job('k', '{}', '{"queue": "qe", "run_at": "2020-01-01T00:00:00Z"}');
select awa.insert_job('k', '{}', '{"queue": "qe", "run_at": "2021-01-01T00:00:00Z"}');

select results_eq($$select available, oldest_run_at from awa.queue_depths()$$,
  $$values (2::bigint, '2020-01-01T00:00:00Z'::timestamptz)$$, 'two jobs, the oldest due in 2020');
select is((select count(*) from awa.claim_ready_runtime('qe', 1)), 1::bigint, 'one job claimed (fixture)');
select results_eq($$select available, oldest_run_at from awa.queue_depths()$$,
  $$values (1::bigint, '2021-01-01T00:00:00Z'::timestamptz)$$,
  'after the claim: one job, and the oldest is the next of the lane');
select awa.pause_queue('qe');
select is((select paused from awa.queue_depths() where queue = 'qe'), true, 'a paused queue is reported paused');
select awa.resume_queue('qe');
select awa.claim_ready_runtime('qe', 1);
select results_eq($$select available, available_capped, oldest_run_at, paused from awa.queue_depths()$$,
  $$values (0::bigint, false, null::timestamptz, false)$$,
  'every job claimed: 0 available, no oldest_run_at, resumed');

select * from finish();
rollback;
