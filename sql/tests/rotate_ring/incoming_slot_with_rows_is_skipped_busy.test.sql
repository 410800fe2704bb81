-- Rotating all the way round while the oldest slot still holds rows: the
-- incoming slot is not empty, so rotate reports skipped_busy and appends nothing.
begin;
select plan(4);

select is(awa_test.turn('queue', 15, 'oq'), 15, 'fifteen rotations reach slot 15');

select * from awa.insert_job('rotate.k', '{}', '{"queue": "oq"}');
create temp table ledger_before as select count(*) as n from awa.ring_rotations;

select results_eq(
  $$select outcome, slot, generation, detail from awa.rotate_ring('queue', now())$$,
  $$values ('skipped_busy'::text, 0, 15::bigint, 'incoming slot 0 still holds rows; prune has not reclaimed it'::text)$$,
  'the rotation into the unpruned slot 0 is skipped_busy');

select is((select count(*) from awa.ring_rotations), (select n from ledger_before), 'no ledger row was appended');
select is(awa._current_slot('queue'), 15, 'the cursor stays at slot 15');

select * from finish();
rollback;
