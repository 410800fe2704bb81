-- queue_counts() without a queue counts only the lanes that have rows in the
-- queue ring (a skip scan of their index), yet still lists every queue that
-- has lanes: a queue whose ready rows are gone (as after its slot's TRUNCATE;
-- deleted here) gets its row with nothing available, with or without the
-- queue filter, and the other queues keep their counts.
begin;
select plan(3);

-- busy_q: two lanes with a job each; idle_q: lanes, no ready row (pgtap/helpers.sql).
select awa_test.idle_and_busy_queues();

select results_eq(
  $$select queue, available, running from awa.queue_counts() where queue in ('idle_q', 'busy_q') order by queue$$,
  $$values ('busy_q'::text, 2::bigint, 0::bigint), ('idle_q', 0, 0)$$,
  'every queue: the one whose lanes hold no ready row is listed with nothing available, the busy one counts both priorities');
select results_eq(
  $$select queue, available from awa.queue_counts('idle_q')$$,
  $$values ('idle_q'::text, 0::bigint)$$,
  'filtered by that queue: listed with nothing available');
select results_eq(
  $$select queue, available from awa.queue_counts('busy_q')$$,
  $$values ('busy_q'::text, 2::bigint)$$,
  'filtered by the busy queue: both jobs');

select * from finish();
rollback;
