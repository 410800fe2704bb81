-- queue_depths() reports, for every queue of the every-state fixture, the
-- available count queue_counts() gives (a cancelled available job's tombstone
-- is not counted) and the run_at of the oldest available job.
begin;
select plan(3);

-- Fixture: two queues with jobs in every state (pgtap/helpers.sql); fx holds
-- each job's expected state.
select awa_test.state_fixture();

select results_eq(
  $$select queue, available, available_capped, paused from awa.queue_depths() order by queue$$,
  $$select queue, available, false, false from awa.queue_counts() where available > 0 order by queue$$,
  'queue_depths() counts the available jobs queue_counts() counts, uncapped and unpaused');
select results_eq(
  $$select queue, oldest_run_at from awa.queue_depths() order by queue$$,
  $$select j.queue, min(j.run_at) from awa.jobs j join fx using (id) where fx.want = 'available'
    group by j.queue order by j.queue$$,
  'oldest_run_at is the earliest run_at of the available jobs of each queue');
select is((select count(*) from awa.queue_depths() where queue = 'qa'), 1::bigint,
  'one row per queue, whatever its lanes');

select * from finish();
rollback;
