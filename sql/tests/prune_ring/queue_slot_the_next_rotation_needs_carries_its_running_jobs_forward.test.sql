-- When the sealed queue slot holding a running job is the one the next
-- rotation needs, prune copies the job's ready row into the current slot,
-- repoints its claim batch there and truncates the slot. The job stays
-- running; its finalizer finds it in the new slot: a retry copies its body,
-- and the retried job runs again.
begin;
select plan(8);

create temp table j as select * from awa.insert_job('long', '{"n": 1}', '{"queue": "lr", "tags": ["t"]}');
create temp table c as select * from awa.claim_ready_runtime('lr', 1);
select is(awa_test.turn('queue', 15), 15, 'the queue ring is turned until slot 0 is the next rotation''s (fixture)');

create temp table p as select * from awa.prune_ring('queue');
select results_eq($$select outcome, slot from p$$, $$values ('pruned'::text, 0)$$, 'queue slot 0 is pruned');
select ok((select detail from p) like '%carrying 1 claim batches of running jobs to slot 15%', 'after carrying the running job');
select results_eq($$select ready_slot, job_id from awa.ready_entries where queue = 'lr'$$,
                  $$select 15, id from j$$, 'the job''s ready row is in slot 15');
select is((select ready_slot from awa.claim_batches where batch_id = (select receipt_id >> 10 from c)), 15,
          'its claim batch points there');
select is((select state from awa.jobs where id = (select id from j)), 'running'::awa.job_state, 'the job is still running');

select results_eq($$select outcome, state from awa.retry_jobs(array(select id from c), array(select run_lease from c),
                                                             array(select claim_slot from c), array(select receipt_id from c),
                                                             array['later'], array[now() - interval '1 second'])$$,
                  $$values ('applied'::awa.finalize_outcome, 'retryable'::awa.job_state)$$,
                  'its retry applies');
select * from awa.promote_due_jobs();
select results_eq($$select kind, args, tags, attempt from awa.claim_ready_runtime('lr', 1)$$,
                  $$values ('long'::text, '{"n": 1}'::jsonb, array['t'], 2)$$,
                  'and the retried job runs again with its body and its second attempt');

select * from finish();
rollback;
