-- The queue fingerprint reads both ready planes: a lane holding only batch
-- rows gets its triple (tip: its last row's last position; first open: the
-- first position above the cursor, in a row's middle when the cursor lies in
-- it), a lane holding both planes one triple over both, and it moves when a
-- batch row arrives or the cursor passes a batch row's jobs.
begin;
select plan(7);

create temp table a as select awa_test.batch_row(array['f', 'f', 'f', 'f'], null, array_fill('{"queue": "fb"}'::jsonb, array[4])) as ids;
create temp table r as select lane_id, first_seq from awa.ready_batches where first_id = (select ids[1] from a);
select is(awa._slot_fingerprint('queue', 0),
          (select array[lane_id::int8, first_seq + 3, first_seq] from r),
          'a lane with one batch row of 4: (lane, its 4th position, its 1st)');

select awa_test.mark_cursor((select lane_id from r), (select first_seq + 1 from r));
select is(awa._slot_fingerprint('queue', 0),
          (select array[lane_id::int8, first_seq + 3, first_seq + 2] from r),
          'the cursor past 2 of its jobs: the first open position is the row''s 3rd');

create temp table p0 as select awa._slot_fingerprint('queue', 0) as q;
create temp table e as select * from awa.insert_jobs(array['f', 'f'], null, array_fill('{"queue": "fb"}'::jsonb, array[2]));
create temp table ep as select lane_id, max(lane_seq) as tip from awa.ready_entries where queue = 'fb' group by lane_id;
select is((select lane_id from ep), (select lane_id from r), 'setup: the ready rows are in the same lane');
select is(awa._slot_fingerprint('queue', 0),
          (select array[lane_id::int8, (select tip from ep), first_seq + 2] from r),
          'ready rows above it: one triple over both planes, the tip the newest ready row''s');

create temp table b as select awa_test.batch_row(array['f', 'f'], null, array_fill('{"queue": "fb"}'::jsonb, array[2])) as ids;
select is(awa._slot_fingerprint('queue', 0),
          (select array[lane_id::int8, first_seq + 1, (select first_seq + 2 from r)] from awa.ready_batches
           where first_id = (select ids[1] from b)),
          'a new batch row moves the tip to its last position');

create temp table p1 as select awa._slot_fingerprint('queue', 0) as q;
select awa_test.mark_cursor((select lane_id from r), (select first_seq + 3 from r));
select isnt(awa._slot_fingerprint('queue', 0), (select q from p1),
            'the cursor passing the row''s last jobs moves the first open position');
select is((awa._slot_fingerprint('queue', 0))[3], (select min(lane_seq) from awa.ready_entries where queue = 'fb'),
          'to the first ready row above the cursor');

select * from finish();
rollback;
