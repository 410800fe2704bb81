-- A sealed queue slot with more than 10,000 available jobs is held out of the
-- rotation (outcome held, a row in awa.ring_held_slots) instead of having its
-- backlog copied: no job moves, and prune then looks past it. storage_status
-- shows the slot held. docs/storage.md, "Held slots".
begin;
select plan(7);

select awa_test.large_backlog('hq', 'prune.k');

select results_eq($$select outcome, slot, detail from awa.prune_ring('queue', 50, 0, 1000)$$,
                  $$values ('held'::text, 0, 'slot 0 holds more than 10000 available jobs: held out of the rotation'::text)$$,
                  'prune holds slot 0');
select results_eq($$select ring, slot from awa.ring_held_slots$$, $$values ('queue'::text, 0)$$,
                  'slot 0 is recorded held');
select results_eq($$select (select count(*)::int from awa.ready_entries_0), (select count(*)::int from awa.ready_entries_1)$$,
                  $$values (10001, 0)$$, 'no job moved');
select results_eq($$select outcome, detail from awa.prune_ring('queue', 50, 0, 1000)$$,
                  $$values ('already_empty'::text, 'no sealed slot holds rows'::text)$$,
                  'the next prune looks past the held slot');
select results_eq($$select ring, slot from awa.ring_held_slots$$, $$values ('queue'::text, 0)$$,
                  'slot 0 stays held while its jobs wait');
select results_eq($$select role, status from awa.storage_status() where ring = 'queue' and slot in (0, 2) order by slot$$,
                  $$values ('held'::text, 'held'::text), ('next'::text, 'empty'::text)$$,
                  'storage_status shows slot 0 held and slot 2 the next');
select results_eq($$select id from awa.claim_ready_runtime('hq', 3, null, now())$$,
                  $$select job_id from awa.ready_entries_0 order by lane_seq limit 3$$,
                  'claims read the held slot in lane order');

select * from finish();
rollback;
