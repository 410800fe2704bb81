-- A claim of a rate-limited queue whose bucket holds less than one token
-- reads it without locking it and ends: no row lock (which would be a WAL
-- record and a transaction id for a claim that takes nothing), so another
-- session can lock the row at once. Fixture: the other session commits the
-- queue's options and an empty bucket (its row must be committed to be
-- locked there), and removes them at the end (with a lock timeout: a claim
-- that locked the row would otherwise hold the cleanup until rollback).
begin;
select plan(5);

select awa_test.connect_other();
select lives_ok(
  $$select dblink_exec('awa_other', 'do $x$ begin perform awa.configure_queue(''rl_empty'', ''{"rate_limit": {"per_second": 0.001, "burst": 1}}''); update awa.queue_rate_buckets set tokens = 0, refreshed_at = now() where queue = ''rl_empty''; end $x$')$$,
  'the other session sets the rate limit and empties the bucket, and commits (fixture)');
select count(*) from awa.insert_jobs(array_fill('k'::text, array[3]), null, array_fill('{"queue":"rl_empty"}'::jsonb, array[3]));

select is((select count(*) from awa.claim_ready_runtime('rl_empty', 3)), 0::bigint, 'an empty bucket: the claim takes nothing');
select * from awa_test.writes_nothing($$select * from awa.claim_ready_runtime('rl_empty', 3)$$, 'and writes nothing');
select lives_ok(
  $$select dblink_exec('awa_other', 'begin; set local lock_timeout = ''100ms''; do $x$ begin perform from awa.queue_rate_buckets where queue = ''rl_empty'' for update nowait; end $x$')$$,
  'another session locks the bucket row at once (NOWAIT): the claims did not lock it');
select dblink_exec('awa_other', 'rollback');

select awa_test.other_session_removes_queue('rl_empty');

select dblink_disconnect('awa_other');
select * from finish();
rollback;
