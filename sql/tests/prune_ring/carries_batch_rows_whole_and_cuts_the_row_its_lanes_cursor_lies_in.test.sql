-- A sealed queue slot holding both ready planes in one lane: prune carries
-- the ready rows above the cursor as ready rows, a batch row wholly above the
-- cursor whole (same lane block, id block and arrays, its tombstones with it,
-- so a cancelled job stays unclaimable), and of the batch row the cursor lies
-- in only its available jobs, as ready rows (the tombstoned one left behind);
-- then truncates the slot. Positions and ids are kept, the cursor does not
-- move, and no job is in two rows of the current slot.
begin;
select plan(11);
select awa.configure_archive('{"completed_seconds": 0, "failed_seconds": 0, "cancelled_seconds": 0}');

-- Row a (5 jobs), row b (3 jobs), then two ready rows, all in one lane.
create temp table a as select awa_test.batch_row(array['c.a', 'c.a', 'c.a', 'c.b', 'c.a'],
  array(select jsonb_build_object('a', g) from generate_series(1, 5) g),
  array_fill('{"queue": "cq"}'::jsonb, array[5])) as ids;
create temp table b as select awa_test.batch_row(array['c.b', 'c.b', 'c.b'],
  array(select jsonb_build_object('b', g) from generate_series(1, 3) g),
  array['{"queue": "cq", "tags": ["t1"]}', '{"queue": "cq"}', '{"queue": "cq", "metadata": {"m": 3}}']::jsonb[]) as ids;
create temp table e as select * from awa.insert_jobs(array['c.e', 'c.e'], null, array_fill('{"queue": "cq"}'::jsonb, array[2]));
create temp table lane as select r.lane_id, r.first_seq from awa.ready_batches r where r.first_id = (select ids[1] from a);
select is((select count(distinct x.lane_id)::int from (select lane_id from awa.ready_batches where queue = 'cq'
                                                      union all select lane_id from awa.ready_entries where queue = 'cq') x),
          1, 'setup: both planes share one lane');

-- Jobs a1, a2 claimed and completed (the cursor lies in row a); a4 and b2
-- cancelled while available (their tombstones).
create temp table c as select * from awa_test.claim_batch_jobs((select ids[1:2] from a));
select * from awa.complete_jobs(array(select id from c), array(select run_lease from c),
                                array(select claim_slot from c), array(select receipt_id from c), now());
insert into awa.ready_tombstones (ready_slot, lane_id, lane_seq, job_id, created_at)
select 0, r.lane_id, r.first_seq + k - 1, r.first_id + k - 1, now()
from awa.ready_batches r, (values ((select ids[1] from a), 4), ((select ids[1] from b), 2)) as t (first_id, k)
where r.first_id = t.first_id;
create temp table rows_b as select * from awa.ready_batches where first_id = (select ids[1] from b);
create temp table items_a as select e.* from awa.ready_batches r cross join lateral awa._batch_items(r) e
                             where r.first_id = (select ids[1] from a);
create temp table cursor0 as select claim_seq from awa.claim_cursors where lane_id = (select lane_id from lane);
select * from awa.rotate_ring('queue', now());

select results_eq($$select outcome, slot, detail from awa.prune_ring('queue')$$,
                  $$values ('pruned'::text, 0, 'truncated slot 0 after moving 6 available jobs to slot 1'::text)$$,
                  'the slot is pruned after moving its 6 available jobs: 2 ready rows, 2 of row a, 2 of row b');
select is((select count(*)::int from awa.ready_batches_0) + (select count(*)::int from awa.ready_entries_0), 0,
          'slot 0 is truncated, both planes');
select set_eq($$select lane_id, first_seq, first_id, n, priority, queue, created_at, kind, item_kinds, item_args::text,
                       item_tags, item_metadata::text, item_run_ats from awa.ready_batches_1$$,
              $$select lane_id, first_seq, first_id, n, priority, queue, created_at, kind, item_kinds, item_args::text,
                       item_tags, item_metadata::text, item_run_ats from rows_b$$,
              'row b is in slot 1 whole: its lane block, id block and item arrays as they were');
select set_eq($$select lane_seq, job_id from awa.ready_tombstones_1$$,
              $$select first_seq + 1 as lane_seq, first_id + 1 as job_id from rows_b$$,
              'b2''s tombstone went with it');
select set_eq($$select lane_id, lane_seq, job_id, run_lease, attempt, max_attempts, priority, queue, kind, args, tags,
                       metadata, errors, created_at, run_at
                from awa.ready_entries_1 where job_id in (select unnest(ids) from a)$$,
              $$select lane_id, lane_seq, job_id, run_lease, attempt, max_attempts, priority, queue, kind, args, tags,
                       metadata, errors, created_at, run_at
                from items_a where job_id in ((select ids[3] from a), (select ids[5] from a))$$,
              'of row a, only a3 and a5 (above the cursor, not cancelled) are in slot 1, as ready rows, every column kept');
select set_eq($$select job_id from awa.ready_entries_1 where job_id not in (select unnest(ids) from a)$$,
              $$select id from e$$, 'the two ready rows are in slot 1');
select results_eq($$select count(*)::int, count(distinct x.job_id)::int
                    from (select job_id from awa.ready_entries_1
                          union all
                          select r.first_id + g from awa.ready_batches_1 r, generate_series(0, r.n - 1) g) x$$,
                  $$values (7, 7)$$,
                  'slot 1 holds 7 of the 10 jobs, once each (a1 and a2 completed and a4 cancelled stayed behind; b2 travels in its row, tombstoned)');
select is((select claim_seq from awa.claim_cursors where lane_id = (select lane_id from lane)), (select claim_seq from cursor0),
          'the claim cursor did not move');
select is(awa._slot_available(1, 100), 6, 'slot 1 holds the 6 available jobs');
select is(awa._slot_available(0, 100), 0, 'slot 0 none');

select * from finish();
rollback;
