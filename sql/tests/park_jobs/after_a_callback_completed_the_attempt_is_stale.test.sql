-- A callback that completes (or fails) the attempt before the handler parks
-- it wins: the park is stale, writes nothing and needs no registration; the
-- job stays completed.
begin;
select plan(5);

create temp table c as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00');
select is((select state from c, awa.complete_external(c.callback_id, '{"ok": true}', '2030-01-01 12:00:01+00')),
          'completed'::awa.job_state, 'the callback completes the job first (fixture)');

prepare park as select p.job_id, p.run_lease, p.outcome, p.state
  from c, awa.park_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id], '2030-01-01 12:00:02+00') p;
select results_eq('park', $$select id, run_lease, 'stale'::awa.finalize_outcome, null::awa.job_state from c$$,
                  'the late park is stale');
select awa_test.writes_nothing('execute park', 'the late park writes nothing');
select is((select count(*) from awa.external_waits), 0::bigint, 'nothing is parked');
select results_eq($$select state, metadata from awa.jobs where id = (select id from c)$$,
                  $$values ('completed'::awa.job_state, '{"callback_result": {"ok": true}}'::jsonb)$$,
                  'the job stays completed with the callback''s payload');

select * from finish();
rollback;
