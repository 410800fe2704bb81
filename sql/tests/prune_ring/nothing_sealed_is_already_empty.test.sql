-- With rows only in the current slot (or none at all), no sealed slot holds
-- rows: prune_ring reports already_empty and truncates nothing.
begin;
select plan(5);

select results_eq(
  $$select ring, action, outcome, slot, generation, detail from awa.prune_ring('queue')$$,
  $$values ('queue'::text, 'prune'::text, 'already_empty'::text, null::int, 0::bigint, 'no sealed slot holds rows'::text)$$,
  'an empty queue ring is already_empty');

select * from awa.insert_job('prune.k', '{}', '{"queue": "nq"}');
select * from awa.claim_ready_runtime('nq', 1, null, now());

select results_eq(
  $$select outcome from awa.prune_ring('queue') union all select outcome from awa.prune_ring('claim')
    union all select outcome from awa.prune_ring('lease')$$,
  $$values ('already_empty'::text), ('already_empty'::text), ('already_empty'::text)$$,
  'rows in the current slots only: every ring is already_empty');

select awa_test.writes_nothing($$select * from awa.prune_ring('queue')$$, 'an already_empty prune writes nothing');

select is((select count(*)::int from awa.ready_entries_0), 1, 'the current queue slot keeps its row');
select is((select count(*)::int from awa.claim_batches_0), 1, 'the current claim slot keeps its row');

select * from finish();
rollback;
