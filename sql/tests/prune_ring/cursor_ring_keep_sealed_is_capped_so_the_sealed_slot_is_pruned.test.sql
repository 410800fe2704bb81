-- The cursor ring has 2 slots: keep_sealed is capped at slot_count - 2 = 0,
-- so whatever keep_sealed says, prune reclaims the one sealed slot the next
-- rotation needs.
begin;
select plan(2);

select * from awa.insert_job('a', '{}', '{"queue": "ck"}');
select * from awa.claim_ready_runtime('ck', 1, null, now());
select * from awa.rotate_ring('cursor', now());

select results_eq($$select outcome, slot from awa.prune_ring('cursor', 50, 14)$$, $$values ('pruned'::text, 0)$$,
                  'keep_sealed 14 still prunes the sealed cursor slot 0');
select is((select count(*)::int from awa.cursor_marks_0), 0, 'cursor slot 0 is empty');

select * from finish();
rollback;
