-- A claim of a rate-limited queue whose bucket row another claimer's
-- transaction holds (an SQL client claiming inside a long transaction) does
-- not wait for it: it returns at once, empty, and writes nothing; the
-- bucket keeps what the holder left, and awa.queue_readiness (which reads
-- the bucket without locking it) says ready with no wait, so the caller
-- retries soon. Fixture: the other session commits the queue's options
-- (its bucket must be a committed row to be locked there) and removes them
-- at the end.
begin;
select plan(7);

select awa_test.connect_other();
select lives_ok(
  $$select dblink_exec('awa_other', 'do $x$ begin perform awa.configure_queue(''rl_held'', ''{"rate_limit": {"per_second": 1, "burst": 5}}''); end $x$')$$,
  'the other session sets the queue''s rate limit and commits (fixture)');
select lives_ok(
  $$select dblink_exec('awa_other', 'begin; do $x$ begin perform from awa.queue_rate_buckets where queue = ''rl_held'' for update; end $x$')$$,
  'and holds its bucket row in an open transaction, as a claim does (fixture)');
select count(*) from awa.insert_jobs(array_fill('k'::text, array[3]), null, array_fill('{"queue":"rl_held"}'::jsonb, array[3]));

set local statement_timeout = '1s';
select is((select count(*) from awa.claim_ready_runtime('rl_held', 3)), 0::bigint,
  'a claim while the bucket is held returns at once, empty (no statement timeout)');
select * from awa_test.writes_nothing($$select * from awa.claim_ready_runtime('rl_held', 3)$$,
  'and writes nothing');
select results_eq($$select pending, ready, wait_for from awa.queue_readiness('rl_held')$$,
  $$values (true, true, null::interval)$$, 'queue_readiness says ready, no wait: retry soon');
reset statement_timeout;

select dblink_exec('awa_other', 'rollback');
select is((select tokens from awa.queue_rate_buckets where queue = 'rl_held'), 5::float8,
  'the bucket is as the holder left it');
select awa_test.other_session_removes_queue('rl_held');

select dblink_disconnect('awa_other');
select * from finish();
rollback;
