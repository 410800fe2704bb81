-- awa.queues_ready reads both ready planes: a queue whose only work is a
-- batch row (awa.ready_batches) is returned ready, still after a claim that
-- stopped in the row's middle, and not once every item is claimed.
begin;
select plan(3);

select awa_test.batch_row(array['qb.k', 'qb.k', 'qb.k'], null, array_fill('{"queue": "qb"}'::jsonb, array[3]));
select results_eq($$select queue, ready, wait_for from awa.queues_ready(array['qb', 'qb_idle'])$$,
                  $$values ('qb'::text, true, null::interval)$$, 'a queue holding a batch row is ready');
select * from awa.claim_ready_runtime('qb', 2);
select results_eq($$select queue, ready, wait_for from awa.queues_ready(array['qb', 'qb_idle'])$$,
                  $$values ('qb'::text, true, null::interval)$$, 'with one of its items left, still ready');
select * from awa.claim_ready_runtime('qb', 10);
select is_empty($$select * from awa.queues_ready(array['qb', 'qb_idle'])$$, 'every item claimed: not returned');

select * from finish();
rollback;
