-- While another session holds the ring's maintenance lock, prune_ring skips
-- with skipped_locked instead of waiting. A second session is opened with dblink.
begin;
select plan(3);

create extension if not exists dblink;
select * from awa.insert_job('prune.k', '{}', '{"queue": "nq"}');
create temp table c as select * from awa.claim_ready_runtime('nq', 1, null, now());
select * from awa.complete_jobs(array[(select id from c)], array[(select run_lease from c)],
                                array[(select claim_slot from c)], array[(select receipt_id from c)], now());
select * from awa.rotate_ring('queue', now());

select dblink_connect('awa_other', format('host=%s port=%s dbname=%s user=%s',
        coalesce(host(inet_server_addr()), split_part(current_setting('unix_socket_directories'), ',', 1)),
        current_setting('port'), current_database(), current_user));
select dblink_exec('awa_other', 'begin; do $x$ begin perform pg_advisory_xact_lock(1096237315, hashtext(''queue'')); end $x$');

select results_eq(
  $$select ring, action, outcome, slot, generation, detail from awa.prune_ring('queue')$$,
  $$values ('queue'::text, 'prune'::text, 'skipped_locked'::text, null::int, null::bigint,
            'another rotate or prune of this ring holds its lock'::text)$$,
  'prune_ring reports skipped_locked');
select is((select count(*)::int from awa.ready_entries_0), 1, 'nothing was truncated');

select dblink_exec('awa_other', 'rollback');
select dblink_disconnect('awa_other');

select is((select outcome from awa.prune_ring('queue')), 'pruned', 'once the lock is released the slot is pruned');

select * from finish();
rollback;
