-- With marks only in the current cursor slot, no sealed slot holds rows:
-- prune_ring('cursor') reports already_empty, raises no floor and truncates
-- nothing.
begin;
select plan(3);

select * from awa.insert_job('a', '{}', '{"queue": "ce"}');
select * from awa.claim_ready_runtime('ce', 1, null, now());

select results_eq(
  $$select ring, action, outcome, slot, generation, detail from awa.prune_ring('cursor')$$,
  $$values ('cursor'::text, 'prune'::text, 'already_empty'::text, null::int, 0::bigint, 'no sealed slot holds rows'::text)$$,
  'a cursor ring with marks in its current slot only is already_empty');
select awa_test.writes_nothing($$select * from awa.prune_ring('cursor')$$, 'an already_empty cursor prune writes nothing');
select is((select count(*)::int from awa.cursor_marks_0), 1, 'the current cursor slot keeps its mark');

select * from finish();
rollback;
