-- When the sealed claim slot holding an open claim is the one the next
-- rotation needs, prune does not wait for the attempt: it copies the batch
-- (and the closure of its finished receipt) into the current slot and
-- truncates the slot. The running job stays running, the finished one stays
-- closed, and the worker's receipt as it got it at claim time still finalizes
-- the attempt, once.
begin;
select plan(9);

select * from awa.insert_jobs(array['long', 'short'], null, array_fill('{"queue": "lj"}'::jsonb, array[2]));
create temp table c as select * from awa.claim_ready_runtime('lj', 2);
select * from awa.complete_jobs(array(select id from c where kind = 'short'), array(select run_lease from c where kind = 'short'),
                                array(select claim_slot from c where kind = 'short'), array(select receipt_id from c where kind = 'short'));
select is(awa_test.turn('claim', 7), 7, 'the claim ring is turned until slot 0 is the next rotation''s (fixture)');

create temp table p as select * from awa.prune_ring('claim');
select results_eq($$select outcome, slot from p$$, $$values ('pruned'::text, 0)$$, 'claim slot 0 is pruned');
select ok((select detail from p) like '%carrying 1 claim batches of running jobs to slot 7%', 'after carrying its open batch');
select is((select count(*)::int from awa.claim_batches_0), 0, 'slot 0 is empty');
select results_eq($$select claim_slot, issued_slot from awa.claim_batches where batch_id = (select receipt_id >> 10 from c limit 1)$$,
                  $$values (7, 0)$$, 'the batch lives in slot 7 and keeps the slot its receipts were issued in');
select results_eq($$select kind, state from awa.jobs where queue = 'lj' order by kind$$,
                  $$values ('long'::text, 'running'::awa.job_state), ('short', 'completed')$$,
                  'the long job is still running, the short one still completed');
select is((select running from awa.queue_counts('lj')), 1::bigint, 'queue_counts counts one running job');

prepare finish_long as
  select outcome, state from awa.complete_jobs(array(select id from c where kind = 'long'), array(select run_lease from c where kind = 'long'),
                                               array(select claim_slot from c where kind = 'long'), array(select receipt_id from c where kind = 'long'));
select results_eq('finish_long', $$values ('applied'::awa.finalize_outcome, 'completed'::awa.job_state)$$,
                  'the receipt from the claim completes the long job');
select results_eq('finish_long', $$values ('stale'::awa.finalize_outcome, null::awa.job_state)$$,
                  'once');

select * from finish();
rollback;
