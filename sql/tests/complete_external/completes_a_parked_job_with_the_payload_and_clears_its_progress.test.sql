-- complete_external of a parked job is applied: the external_waits row is
-- gone, the job is completed (attempt 1: the parked attempt is counted) with
-- the payload in metadata.callback_result, and the progress checkpoint,
-- kept while the job was parked, is deleted.
begin;
select plan(6);

create temp table c as select * from awa_test.claim_parked('cb', '2030-01-01 12:00:00+00', interval '1 hour', '{}',
                                                          '{"step": 1}');
select is((select progress from awa.job_progress((select id from c))), '{"step": 1}'::jsonb,
          'the parked job keeps its checkpoint');

select results_eq(
  $$select o.callback_id, o.job_id, o.run_lease, o.outcome, o.state
    from c, awa.complete_external(c.callback_id, '[1, 2]', '2030-01-01 12:00:05+00') o$$,
  $$select c.callback_id, c.id, c.run_lease, 'applied'::awa.finalize_outcome, 'completed'::awa.job_state from c$$,
  'the completion is applied');
select is((select count(*) from awa.external_waits), 0::bigint, 'the job is no longer parked');
select results_eq($$select state, attempt, run_lease, metadata, finalized_at from awa.jobs where id = (select id from c)$$,
                  $$select 'completed'::awa.job_state, 1, run_lease, '{"callback_result": [1, 2]}'::jsonb,
                           '2030-01-01 12:00:05+00'::timestamptz from c$$,
                  'the job is completed, the parked attempt counted, the payload in its metadata');
select is_empty($$select * from awa.job_progress((select id from c))$$, 'the progress checkpoint is deleted');
select results_eq($$select completed, waiting_external from awa.queue_counts('cb')$$,
                  $$values (1::bigint, 0::bigint)$$, 'queue_counts counts it completed');

select * from finish();
rollback;
