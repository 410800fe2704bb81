-- While another session reads the sealed cursor slot (as a claim does when it
-- reads a cursor), cursor-ring prune gives up after lock_timeout_ms:
-- skipped_blocked, no floor raised, nothing truncated, lock_timeout restored.
-- Once the reader is gone the slot is pruned. A second session is opened
-- with dblink.
begin;
select plan(7);

select * from awa.configure_queue('cb', '{"enqueue_shards": 1}');
select * from awa.insert_job('a', '{}', '{"queue": "cb"}');
select * from awa.claim_ready_runtime('cb', 1, null, now());
create temp table lane as select l.lane_id from awa.queue_lanes l where l.queue = 'cb' and l.priority = 2;
select * from awa.rotate_ring('cursor', now());

select * from awa_test.other_session_locks('cursor_marks_0', 'access share', '-c lock_timeout=5s -c statement_timeout=10s',
  'the second session holds a read lock on awa.cursor_marks_0 (fixture)');

select results_eq(
  $$select ring, outcome, slot, generation, detail from awa.prune_ring('cursor', 20)$$,
  $$values ('cursor'::text, 'skipped_blocked'::text, 0, 1::bigint, 'awa.cursor_marks_0 not free within 20 ms'::text)$$,
  'prune reports skipped_blocked naming the table it could not lock');
select is((select count(*)::int from awa.cursor_marks_0), 1, 'nothing was truncated');
select is((select claim_seq from awa.queue_claim_heads where lane_id = (select lane_id from lane)), 0::bigint,
          'no floor was raised');
select is(current_setting('lock_timeout'), '0', 'lock_timeout is restored');

select dblink_exec('awa_other', 'rollback');
select dblink_disconnect('awa_other');

select is((select outcome from awa.prune_ring('cursor', 20)), 'pruned', 'once the reader is gone the slot is pruned');

select * from finish();
rollback;
