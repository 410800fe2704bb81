-- The held-slot rule counts a batch row's jobs, not its rows: ten batch rows
-- of 1,024 jobs (10,240 available, ten rows) make a sealed slot held, and
-- nothing moves; once the cursor leaves 1,000 of them the held slot is
-- pruned, its last 1,000 carried (as ready rows: the cursor lies in their
-- row) and the slot given back.
begin;
select plan(6);
select awa.configure_archive('{"completed_seconds": 0, "failed_seconds": 0, "cancelled_seconds": 0}');

select awa_test.batch_row(array_fill('h'::text, array[1024]), null, array_fill('{"queue": "hb"}'::jsonb, array[1024]))
from generate_series(1, 10);
select * from awa.rotate_ring('queue', now());

select results_eq($$select outcome, slot from awa.prune_ring('queue', 50, 0, 1000)$$,
                  $$values ('held'::text, 0)$$, 'prune holds slot 0: 10,240 available jobs in ten rows');
select results_eq($$select count(*)::int, sum(n)::int from awa.ready_batches_0$$, $$values (10, 10240)$$,
                  'nothing moved');

-- Worked down to 1,000: the cursor 24 jobs into the last row.
create temp table last_row as select * from awa.ready_batches_0 order by first_seq desc limit 1;
select awa_test.mark_cursor((select lane_id from last_row), (select first_seq + 23 from last_row));
select is(awa._slot_available(0, 1001), 1000, 'the held slot holds 1,000 available jobs');
select results_eq($$select outcome, slot, detail from awa.prune_ring('queue', 50, 0, 1000)$$,
                  $$values ('pruned'::text, 0, 'truncated slot 0 after moving 1000 available jobs to slot 1'::text)$$,
                  'the held slot is pruned, its last 1,000 moved to the current slot');
select set_eq($$select job_id from awa.ready_entries_1 where queue = 'hb'$$,
              $$select first_id + g from last_row, generate_series(24, 1023) g$$,
              'they are the last row''s jobs above the cursor');
select is((select count(*)::int from awa.ring_held_slots), 0, 'slot 0 is given back');

select * from finish();
rollback;
