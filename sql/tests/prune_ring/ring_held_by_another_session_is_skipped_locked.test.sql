-- While another session holds the ring's maintenance lock (a concurrent rotate
-- or prune), prune_ring (and rotate_ring) skip with skipped_locked instead of
-- waiting; once released, the slot is sealed and pruned. A second session is
-- opened with dblink; it takes the lock before this session touches the ring
-- lock (rotate/prune hold it until commit).
begin;
select plan(6);

select awa_test.connect_other('-c lock_timeout=5s -c statement_timeout=10s');
select lives_ok(
  $$select dblink_exec('awa_other', 'begin; do $x$ begin perform pg_advisory_xact_lock(awa._lock_key(''ring''), hashtext(''queue'')); end $x$')$$,
  'the second session takes the queue ring maintenance lock (fixture)');

select awa_test.completed_job('nq');

select results_eq(
  $$select ring, action, outcome, slot, generation, detail from awa.prune_ring('queue')$$,
  $$values ('queue'::text, 'prune'::text, 'skipped_locked'::text, null::int, null::bigint,
            'another rotate or prune of this ring holds its lock'::text)$$,
  'prune_ring reports skipped_locked');
select is((select outcome from awa.rotate_ring('queue', now())), 'skipped_locked', 'rotate_ring is skipped_locked too');

select dblink_exec('awa_other', 'rollback');
select dblink_disconnect('awa_other');

select is((select outcome from awa.rotate_ring('queue', now())), 'rotated', 'once the lock is released the ring rotates');
select is((select outcome from awa.prune_ring('queue')), 'pruned', 'and the sealed slot is pruned');

select * from finish();
rollback;
