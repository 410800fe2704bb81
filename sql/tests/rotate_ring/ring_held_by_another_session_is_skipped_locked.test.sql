-- While another session holds the ring's maintenance lock (a concurrent rotate
-- or prune), rotate_ring skips with skipped_locked instead of waiting.
-- A second session is opened with dblink.
begin;
select plan(5);

select * from awa.insert_job('rotate.k', '{}', '{"queue": "oq"}');

select awa_test.connect_other('-c lock_timeout=5s -c statement_timeout=10s');
select lives_ok(
  $$select dblink_exec('awa_other', 'begin; do $x$ begin perform pg_advisory_xact_lock(awa._lock_key(''ring''), hashtext(''queue'')); end $x$')$$,
  'the second session takes the queue ring maintenance lock (fixture)');

select results_eq(
  $$select ring, action, outcome, slot, generation, detail from awa.rotate_ring('queue', now())$$,
  $$values ('queue'::text, 'rotate'::text, 'skipped_locked'::text, null::int, null::bigint,
            'another rotate or prune of this ring holds its lock'::text)$$,
  'rotate_ring reports skipped_locked');
select is(awa._current_slot('queue'), 0, 'the cursor did not move');

select dblink_exec('awa_other', 'rollback');
select dblink_disconnect('awa_other');

select results_eq(
  $$select outcome from awa.rotate_ring('queue', now())$$,
  $$values ('rotated'::text)$$,
  'once the lock is released the ring rotates');

select * from finish();
rollback;
