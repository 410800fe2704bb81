-- A producer reads only the current queue slot (its notify rule included), so
-- it never queues behind a queue-ring prune, which locks only a sealed slot.
-- Another session (dblink) holds queue slot 5 exclusively, as such a prune
-- does; inserts under a 200 ms lock_timeout, past the five custom plans of a
-- PL/pgSQL statement, all succeed. (The cursor ring's half, for a lane with a
-- mark in the current cursor slot: TestProducersNeverWaitBehindAPruneOfASealedSlot.)
begin;
select plan(4);

select awa.insert_job('k', '{}', '{"queue": "sealed"}');
select awa_test.connect_other();
select lives_ok(
  $$select dblink_exec('awa_other', 'begin; set local lock_timeout = ''2s''; lock table awa.ready_entries_5 in access exclusive mode')$$,
  'the second session holds sealed queue slot 5 exclusively (fixture)');

set local lock_timeout = '200ms';
select lives_ok(
  $q$do $d$ begin for i in 1 .. 8 loop perform awa.insert_job('k', '{}', '{"queue": "sealed"}'); end loop; end $d$$q$,
  'eight inserts into the current slot do not wait for the sealed slot');

select dblink_exec('awa_other', 'rollback');
select is((select count(*) from awa.ready_entries where queue = 'sealed'), 9::bigint, 'all nine jobs are written');
select * from finish();
rollback;
