-- awa.queue_pending reads both ready planes: a batch row (awa.ready_batches)
-- makes its queue pending and ready while one of its items lies above the
-- lane's cursor (after a claim stopped in the row's middle too), and a lane
-- whose per-row jobs are claimed is still ready for the batch row behind them.
begin;
select plan(5);

select awa_test.batch_row(array['pb.k', 'pb.k', 'pb.k'], null,
                          array_fill('{"queue": "pb"}'::jsonb, array[3]));
select results_eq($$select pending, ready from awa.queue_pending('pb')$$, $$values (true, true)$$,
                  'a batch row: pending and ready');
select is((select count(*)::int from awa.claim_ready_runtime('pb', 2)), 2, 'fixture: a claim takes two of its three items');
select results_eq($$select pending, ready from awa.queue_pending('pb')$$, $$values (true, true)$$,
                  'its last item above the cursor: still ready');
select * from awa.claim_ready_runtime('pb', 10);
select results_eq($$select pending, ready from awa.queue_pending('pb')$$, $$values (false, false)$$,
                  'every item claimed: neither');

select * from awa.insert_job('pb.k', '{}', '{"queue": "pb"}');
select awa_test.batch_row(array['pb.k'], null, array['{"queue": "pb"}']::jsonb[]);
select * from awa.claim_ready_runtime('pb', 1);
select results_eq($$select pending, ready from awa.queue_pending('pb')$$, $$values (true, true)$$,
                  'the per-row job claimed, the batch row behind it keeps the lane ready');

select * from finish();
rollback;
