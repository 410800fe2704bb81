-- Prune never queues for a slot's locks: each attempt takes them all with
-- NOWAIT or none, 1 ms apart, within its budget. So a session that reads a
-- table of the slot while prune retries is never held behind prune (here:
-- another session holds done_completions_0 and then reads
-- ready_entries_0, which a waiting prune would hold exclusively: before, that
-- closed a lock cycle). The reader finishes within its own 200 ms
-- lock_timeout and, its transaction still open, holds both tables; prune
-- reports skipped_blocked naming the table its last attempt could not lock
-- (ready_entries_0, the first it asks for), and truncates nothing. A second
-- session is opened with dblink.
begin;
select plan(6);

create extension if not exists dblink;
select * from awa.insert_job('prune.k', '{}', '{"queue": "nq"}');
create temp table c as select * from awa.claim_ready_runtime('nq', 1, null, now());
select * from awa.complete_jobs(array[(select id from c)], array[(select run_lease from c)],
                                array[(select claim_slot from c)], array[(select receipt_id from c)], now());
select * from awa.rotate_ring('queue', now());

select lives_ok(
  $$select dblink_connect('awa_other', format('host=%s port=%s dbname=%s user=%s options=''-c lock_timeout=200ms -c statement_timeout=10s''',
        coalesce(host(inet_server_addr()), split_part(current_setting('unix_socket_directories'), ',', 1)),
        current_setting('port'), current_database(), current_user))$$,
  'a second session connects (fixture)');
select lives_ok(
  $$select dblink_exec('awa_other', 'begin; lock table awa.done_completions_0 in access share mode')$$,
  'the second session holds a read lock on awa.done_completions_0 (fixture)');
-- In 300 ms, while prune retries, the second session reads ready_entries_0.
select is(dblink_send_query('awa_other',
  'do $x$ begin perform pg_sleep(0.3); perform count(*) from awa.ready_entries_0; end $x$'), 1,
  'the second session will read awa.ready_entries_0 in 300 ms (fixture)');

select results_eq(
  $$select outcome, slot, detail from awa.prune_ring('queue', 1000)$$,
  $$values ('skipped_blocked'::text, 0, 'awa.ready_entries_0 not free within 1000 ms'::text)$$,
  'prune reports skipped_blocked, naming the table its last attempt could not lock');
select is((select status from dblink_get_result('awa_other') as r (status text)), 'DO',
  'the other session read ready_entries_0 within its 200 ms lock_timeout while prune retried');
select is((select count(*)::int from awa.ready_entries_0), 1, 'nothing was truncated');

select * from dblink_get_result('awa_other') as r (status text); -- ends the async query
select dblink_exec('awa_other', 'rollback');
select dblink_disconnect('awa_other');

select * from finish();
rollback;
