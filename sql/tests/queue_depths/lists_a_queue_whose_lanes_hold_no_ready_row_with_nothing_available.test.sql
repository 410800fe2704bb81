-- queue_depths() reads only the lanes that have rows in the queue ring (a skip
-- scan of their index), yet still lists every queue that has lanes: a queue
-- whose ready rows are gone (as after its slot's TRUNCATE; deleted here) gets
-- its row with nothing available, and the other queues keep their counts.
begin;
select plan(3);

-- busy_q: two lanes with a job each; idle_q: lanes, no ready row (pgtap/helpers.sql).
select awa_test.idle_and_busy_queues();

select results_eq(
  $$select queue, available, available_capped, oldest_run_at is null, paused from awa.queue_depths()
    where queue in ('idle_q', 'busy_q') order by queue$$,
  $$values ('busy_q'::text, 2::bigint, false, false, false), ('idle_q', 0, false, true, false)$$,
  'a queue whose lanes hold no ready row is listed with nothing available; the busy one counts both priorities');
select is((select count(*) from awa.queue_depths()),
  (select count(distinct queue) from awa.queue_lanes),
  'one row per queue that has lanes');
select is((select available from awa.queue_depths(1) where queue = 'busy_q'), 2::bigint,
  'the limit applies per lane: two lanes with one job each count two under a limit of one');

select * from finish();
rollback;
