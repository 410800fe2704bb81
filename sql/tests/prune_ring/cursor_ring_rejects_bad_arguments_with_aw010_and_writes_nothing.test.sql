-- The cursor ring shares prune_ring's argument checks: lock_timeout_ms outside
-- 1..60000, a negative keep_sealed, carry_limit outside 1..100000 raise AW010,
-- and nothing is written (no floor raised, no mark truncated).
begin;
select plan(7);

select * from awa.configure_queue('cx', '{"enqueue_shards": 1}');
select * from awa.insert_job('a', '{}', '{"queue": "cx"}');
select * from awa.claim_ready_runtime('cx', 1, null, now());
select * from awa.rotate_ring('cursor', now());

select t.* from (values
  ($$select * from awa.prune_ring('cursor', 0)$$, 'AW010', 'awa: lock_timeout_ms must be between 1 and 60000, got 0', 'lock_timeout_ms 0 raises AW010', NULL),
  ($$select * from awa.prune_ring('cursor', 50, -1)$$, 'AW010', 'awa: keep_sealed must be zero or more, got -1', 'a negative keep_sealed raises AW010', NULL),
  ($$select * from awa.prune_ring('cursor', 50, 0, 0)$$, 'AW010', 'awa: carry_limit must be between 1 and 100000, got 0', 'carry_limit 0 raises AW010', NULL)
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;
select is((select count(*)::int from awa.cursor_marks_0), 1, 'the sealed cursor slot keeps its mark');

select * from finish();
rollback;
