-- awa.queue_drained reads both ready planes: a batch row (awa.ready_batches)
-- keeps its queue undrained while an item above the lane's cursor has no
-- tombstone, the row's arrays unread (its items counted from its block).
begin;
select plan(4);

select awa_test.batch_row(array['db.k', 'db.k', 'db.k'], null, array_fill('{"queue": "db"}'::jsonb, array[3]));
select results_eq($$select drained, available, running from awa.queue_drained('db')$$, $$values (false, true, false)$$,
                  'a batch row''s items: available');
create temp table c as select * from awa.claim_ready_runtime('db', 1);
select results_eq($$select drained, available, running from awa.queue_drained('db')$$, $$values (false, true, true)$$,
                  'one claimed: running, and two still available');
-- Tombstones of items 2 and 3 (cancelled while available; written here as
-- awa.cancel_job writes a per-row job's).
insert into awa.ready_tombstones (ready_slot, lane_id, lane_seq, job_id, created_at)
select b.ready_slot, b.lane_id, b.first_seq + k, b.first_id + k, now() from awa.ready_batches b, generate_series(1, 1) k
where b.queue = 'db';
select results_eq($$select drained, available, running from awa.queue_drained('db')$$, $$values (false, true, true)$$,
                  'one item tombstoned, one left: available');
insert into awa.ready_tombstones (ready_slot, lane_id, lane_seq, job_id, created_at)
select b.ready_slot, b.lane_id, b.first_seq + 2, b.first_id + 2, now() from awa.ready_batches b where b.queue = 'db';
select awa.complete_jobs(array[x.id], array[x.run_lease], array[x.claim_slot], array[x.receipt_id]) from c x;
select results_eq($$select drained, available, running from awa.queue_drained('db')$$, $$values (true, false, false)$$,
                  'both left tombstoned and the claimed one completed: drained');

select * from finish();
rollback;
