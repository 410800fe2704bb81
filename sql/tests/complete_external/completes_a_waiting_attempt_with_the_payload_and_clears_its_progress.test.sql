-- complete_external of an attempt waiting in sequence (registered, not
-- parked) is applied: the attempt closes (closure outcome
-- callback_complete), the job is completed, attempt 1, with the payload in
-- metadata.callback_result, its progress checkpoint is deleted, the
-- registration too; the handler's own complete is then stale.
begin;
select plan(8);

create temp table c as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00', interval '1 hour', '{"metadata": {"m": 1}}',
                                                          '{"step": 1}');

select results_eq(
  $$select o.callback_id, o.job_id, o.run_lease, o.outcome, o.state
    from c, awa.complete_external(c.callback_id, '{"ok": true}', '2030-01-01 12:00:05+00') o$$,
  $$select c.callback_id, c.id, c.run_lease, 'applied'::awa.finalize_outcome, 'completed'::awa.job_state from c$$,
  'the completion is applied');
select results_eq($$select state, attempt, metadata, errors, finalized_at from awa.jobs where id = (select id from c)$$,
                  $$values ('completed'::awa.job_state, 1, '{"m": 1, "callback_result": {"ok": true}}'::jsonb, null::jsonb,
                            '2030-01-01 12:00:05+00'::timestamptz)$$,
                  'the job is completed, attempt 1, the payload in its metadata');
select results_eq($$select outcome from awa.claim_closures$$, $$values ('callback_complete'::text)$$,
                  'the attempt is closed with outcome callback_complete');
select is_empty($$select * from awa.job_progress((select id from c))$$, 'the progress checkpoint is deleted');
select is((select count(*) from awa.callbacks), 0::bigint, 'the registration is deleted');
prepare handler as select outcome from c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id]);
select is((select outcome from c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id])),
          'stale'::awa.finalize_outcome, 'the handler''s own complete is stale');
select awa_test.writes_nothing('execute handler', 'and writes nothing');
select results_eq($$select completed, running, waiting_external from awa.queue_counts('cb')$$,
                  $$values (1::bigint, 0::bigint, 0::bigint)$$, 'queue_counts counts it completed');

select * from finish();
rollback;
