-- carry_limit counts a batch row's available jobs: a call moves rows while
-- fewer than the limit have moved (here one row of two, then the other) and
-- reports carried. Between the calls the row the cursor lies in is cut to
-- its claimed jobs in the sealed slot, so their claims and completions still
-- name their bodies there (ready_slot, lane, position) and nothing is
-- claimable twice; the prune that truncates the slot (the one the next
-- rotation needs) carries the running ones as ready rows and archives the
-- completed ones, each read from the row once.
begin;
select plan(11);
select awa.configure_archive('{"completed_seconds": 86400, "failed_seconds": 0, "cancelled_seconds": 0}');

create temp table a as select awa_test.batch_row(array_fill('l.a'::text, array[100]),
  array(select jsonb_build_object('a', g, 'pad', md5(g::text)) from generate_series(1, 100) g),
  array_fill('{"queue": "lq"}'::jsonb, array[100])) as ids;
create temp table b as select awa_test.batch_row(array_fill('l.b'::text, array[200]),
  array(select jsonb_build_object('b', g, 'pad', md5(g::text)) from generate_series(1, 200) g),
  array_fill('{"queue": "lq"}'::jsonb, array[200])) as ids;
-- 60 of row a claimed: 50 completed now, 10 still running when the first prune runs.
create temp table c as select * from awa_test.claim_batch_jobs((select ids[1:60] from a));
select * from awa.complete_jobs(array(select id from c limit 50), array(select run_lease from c limit 50),
                                array(select claim_slot from c limit 50), array(select receipt_id from c limit 50), now());
create temp table row_a as select * from awa.ready_batches where first_id = (select ids[1] from a);
create temp table row_b as select * from awa.ready_batches where first_id = (select ids[1] from b);
select is(awa_test.turn('queue', 15), 15, 'the queue ring is turned until slot 0 is the next rotation''s (fixture)');

select results_eq($$select outcome, slot, detail from awa.prune_ring('queue', 50, 0, 10)$$,
                  $$values ('carried'::text, 0, 'moved 40 available jobs to slot 15, at least 10 remain'::text)$$,
                  'a limit of 10: row a''s 40 available jobs move (the first row counts whole), row b''s 200 wait');
select results_eq($$select n, first_id, first_seq from awa.ready_batches_0 where first_id = (select ids[1] from a)$$,
                  $$select 60, first_id, first_seq from row_a$$,
                  'row a stays in slot 0 cut to its 60 claimed jobs');
select set_eq($$select job_id from awa.ready_entries_15 where queue = 'lq'$$, $$select unnest(ids[61:100]) from a$$,
              'its 40 available jobs are ready rows of slot 15');
select is(awa._slot_available(0, 1000), 200, 'slot 0 still holds row b''s 200 available jobs, not row a''s again');
select results_eq($$select count(*)::int, min(e.job_id), max(e.job_id) from awa.ready_batches_0 r
                    cross join lateral awa._batch_items(r) e where r.first_id = (select ids[1] from a)$$,
                  $$select 60, ids[1], ids[60] from a$$,
                  'the claimed jobs'' bodies are still read at their positions in slot 0');

-- The next prune moves row b, carries the ten running jobs and truncates.
create temp table fetches as
select coalesce(sum(s.idx_scan), 0) as n from pg_stat_xact_all_tables s
where s.relid = (select reltoastrelid from pg_class where oid = 'awa.ready_batches_0'::regclass);
select results_eq($$select outcome, detail from awa.prune_ring('queue', 50, 0, 10)$$,
                  $$values ('pruned'::text, 'truncated slot 0 after moving 200 available jobs to slot 15 after carrying 1 claim batches of running jobs to slot 15'::text)$$,
                  'the next call moves row b, carries the running jobs'' claim batch and truncates the slot');
select set_eq($$select job_id, args, lane_seq from awa.ready_entries_15 where job_id in (select id from c)$$,
              $$select r.first_id + g - 1 as job_id, r.item_args[g] as args, r.first_seq + g - 1 as lane_seq from row_a r, generate_series(51, 60) g$$,
              'the ten running jobs are ready rows of slot 15 at their positions, with their bodies');
select set_eq($$select job_id, args from awa_test.archived_jobs where queue = 'lq'$$,
              $$select r.first_id + g - 1 as job_id, r.item_args[g] as args from row_a r, generate_series(1, 50) g$$,
              'the 50 completed jobs of row a are archived with their bodies');
-- Fetches of the slot's out-of-line values (its TOAST index scans): a few
-- per row read (row a for the running jobs and for the archive, row b's
-- copy), where reading row a once per job would alone take 60.
select ok((select s.idx_scan - (select n from fetches) between 3 and 9 from pg_stat_xact_all_tables s
           where s.relid = (select reltoastrelid from pg_class where oid = 'awa.ready_batches_0'::regclass)),
          'the prune fetched the rows'' arrays under 10 times: each row read once, not once per job');
select results_eq($$select ready_slot, n, pg_column_compression(item_args) is not null,
                           pg_column_compression(item_args) = (select pg_column_compression(item_args) from row_b)
                    from awa.ready_batches where first_id = (select ids[1] from b)$$,
                  $$values (15, 200, true, true)$$,
                  'row b is in slot 15 whole, its args still compressed as they were');

select * from finish();
rollback;
