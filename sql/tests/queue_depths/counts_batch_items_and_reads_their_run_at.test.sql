-- awa.queue_depths counts both ready planes: a batch row's items above the
-- lane's cursor less the tombstones among them, beside per-row jobs, capped
-- at count_limit per lane; oldest_run_at reads a batch item's own run_at
-- (item_run_ats) past the cursor, else the row's created_at.
begin;
select plan(6);

select awa_test.batch_row(array_fill('qd.k'::text, array[5]), null,
                          array['{"queue": "qd"}', '{"queue": "qd"}',
                                jsonb_build_object('queue', 'qd', 'run_at', now() - interval '10 minutes'),
                                '{"queue": "qd"}', '{"queue": "qd"}']::jsonb[]);
select * from awa.insert_job('qd.k', '{}', '{"queue": "qd"}');
select results_eq($$select available, available_capped, oldest_run_at from awa.queue_depths() where queue = 'qd'$$,
                  $$values (6::bigint, false, now() - interval '10 minutes')$$,
                  'five batch items and a per-row job; the oldest is the item''s own run_at');
select results_eq($$select available, available_capped from awa.queue_depths(3) where queue = 'qd'$$,
                  $$values (3::bigint, true)$$, 'count_limit caps the lane''s count');

select * from awa.claim_ready_runtime('qd', 2);
select results_eq($$select available, oldest_run_at from awa.queue_depths() where queue = 'qd'$$,
                  $$values (4::bigint, now() - interval '10 minutes')$$,
                  'two claimed: four left, the old item among them');
select * from awa.claim_ready_runtime('qd', 1);
select results_eq($$select available, oldest_run_at from awa.queue_depths() where queue = 'qd'$$,
                  $$values (3::bigint, now())$$,
                  'the old item claimed: the rest are due at the row''s created_at');
insert into awa.ready_tombstones (ready_slot, lane_id, lane_seq, job_id, created_at)
select b.ready_slot, b.lane_id, b.first_seq + 3, b.first_id + 3, now() from awa.ready_batches b where b.queue = 'qd';
select is((select available from awa.queue_depths() where queue = 'qd'), 2::bigint, 'a tombstoned item is not counted');
insert into awa.ready_tombstones (ready_slot, lane_id, lane_seq, job_id, created_at)
select b.ready_slot, b.lane_id, b.first_seq + 4, b.first_id + 4, now() from awa.ready_batches b where b.queue = 'qd';
select * from awa.claim_ready_runtime('qd', 10);
select results_eq($$select available, oldest_run_at from awa.queue_depths() where queue = 'qd'$$,
                  $$values (0::bigint, null::timestamptz)$$, 'nothing left: zero, no oldest_run_at');

select * from finish();
rollback;
