-- keep_sealed leaves the most recently sealed slots (and their terminal
-- history) alone; it is capped at slot_count - 2, so the slot the next
-- rotation needs can always be reclaimed.
begin;
select plan(6);
-- The queue ring alone: archive retention 0 (with it on, the prune copies the
-- slot's terminal jobs to the archive first: prune_ring/archives_*).
select awa.configure_archive('{"completed_seconds": 0, "failed_seconds": 0, "cancelled_seconds": 0}');

-- A completed job in each of slots 0, 1 and 2; current slot 3.
select is(awa_test.turn('queue', 3, 'keep'), 3, 'setup: slots 0..2 sealed, slot 3 current');

select results_eq($$select outcome, slot from awa.prune_ring('queue', 50, 3)$$,
                  $$values ('already_empty'::text, null::int)$$,
                  'keeping the 3 newest sealed slots leaves nothing to prune');
select is((select count(*) from awa.terminal_jobs where queue = 'keep'), 3::bigint,
          'all three completions are still readable');
select results_eq($$select outcome, slot from awa.prune_ring('queue', 50, 2)$$,
                  $$values ('pruned'::text, 0)$$,
                  'keeping 2 prunes the oldest sealed slot, 0');
select is((select count(*) from awa.terminal_jobs where queue = 'keep'), 2::bigint,
          'the two newer completions are still readable');
select results_eq($$select outcome, slot from awa.prune_ring('queue', 50, 1000)$$,
                  $$values ('already_empty'::text, null::int)$$,
                  'a huge keep_sealed is capped at slot_count - 2 (the empty incoming slot 4..15 and 0 hold nothing)');

select * from finish();
rollback;
