-- The queue proof (carry false) finds an available job in the batch plane:
-- the first position of a lane's row above its cursor that no tombstone
-- spends, its job id by arithmetic (first_id + position - first_seq). A row
-- whose every position above the cursor is tombstoned, or that the cursor
-- has passed, holds none.
begin;
select plan(5);

create temp table a as select awa_test.batch_row(array['k', 'k', 'k', 'k', 'k'], null,
  array_fill('{"queue": "sb"}'::jsonb, array[5])) as ids;
create temp table r as select * from awa.ready_batches where first_id = (select ids[1] from a);
-- The cursor past a1, a2; a3 cancelled.
select awa_test.mark_cursor((select lane_id from r), (select first_seq + 1 from r));
insert into awa.ready_tombstones (ready_slot, lane_id, lane_seq, job_id, created_at)
select 0, lane_id, first_seq + 2, first_id + 2, now() from r;
select * from awa.rotate_ring('queue', now());

select results_eq($$select cause, job_id, queue, detail from awa._slot_blocker('queue', 0)$$,
                  $$select 'available'::text, ids[4], 'sb'::text,
                           format('ready slot 0 holds an available job (job %s, lane %s position %s, in a batch row of 5 jobs)',
                                  ids[4], (select lane_id from r), (select first_seq + 3 from r)) from a$$,
                  'it names a4, the first job above the cursor that is not cancelled');
select is(awa._slot_blocker('queue', 0, true), null, 'with carry, available jobs do not count');
insert into awa.ready_tombstones (ready_slot, lane_id, lane_seq, job_id, created_at)
select 0, lane_id, first_seq + g, first_id + g, now() from r, generate_series(3, 4) g;
select is(awa._slot_blocker('queue', 0), null, 'a4 and a5 cancelled too: nothing available');
select is(awa._slot_live_reason('queue', 0), null, 'and the proof prune reads agrees');

delete from awa.ready_tombstones where job_id = (select ids[5] from a);
select awa_test.mark_cursor((select lane_id from r), (select first_seq + 4 from r));
select is(awa._slot_blocker('queue', 0), null, 'the cursor past the row''s last job: nothing available');

select * from finish();
rollback;
