-- Every two wraps the ledger drops rows older than the last two wraps, and the
-- cursor (max generation) is unaffected. Claim ring: 8 slots, so generation 16
-- trims generation 0.
begin;
select plan(5);

-- Each round: one claim in the current claim slot, finalized, then rotate and
-- prune the slot just sealed so the ring can wrap.
select awa_test.turn('claim', 15, 'oq', p_prune => true);
select awa_test.completed_job('oq', 'rotate.k');

select results_eq(
  $$select min(generation), max(generation), count(*)::int from awa.ring_rotations where ring = 'claim'$$,
  $$values (0::bigint, 15::bigint, 16)$$,
  'before the trim the claim ledger holds generations 0..15');

select results_eq(
  $$select outcome, slot, generation from awa.rotate_ring('claim', now())$$,
  $$values ('rotated'::text, 0, 16::bigint)$$,
  'the sixteenth rotation wraps to slot 0, generation 16');

select results_eq(
  $$select min(generation), max(generation), count(*)::int from awa.ring_rotations where ring = 'claim'$$,
  $$values (1::bigint, 16::bigint, 16)$$,
  'the ledger is trimmed to the last two wraps (generations 1..16)');

select is(awa._current_slot('claim'), 0, 'the cursor is the max-generation row (slot 0)');

select is((select count(*)::int from awa.ring_rotations where ring = 'queue'), 1, 'the queue ledger is untouched');

select * from finish();
rollback;
