-- fail_external of a parked job is applied (state failed): it leaves the
-- parked plane, the parked attempt counted and the error appended; a job of
-- a queue with the DLQ on goes to the DLQ (failed, dlq true). A waiting
-- attempt of a DLQ queue goes there too.
begin;
select plan(6);

select awa.configure_queue('cb_dlq', '{"dlq": true}');
create temp table p as select * from awa_test.claim_parked('cb', '2030-01-01 12:00:00+00');
create temp table d as select * from awa_test.claim_parked('cb_dlq', '2030-01-01 12:00:00+00');
create temp table w as select * from awa_test.claim_registered('cb_dlq', '2030-01-01 12:00:00+00');

select results_eq($$select o.outcome, o.state from p, awa.fail_external(p.callback_id, 'no', '2030-01-01 12:00:05+00') o
                    union all select o.outcome, o.state from d, awa.fail_external(d.callback_id, 'no', '2030-01-01 12:00:05+00') o
                    union all select o.outcome, o.state from w, awa.fail_external(w.callback_id, 'no', '2030-01-01 12:00:05+00') o$$,
                  $$values ('applied'::awa.finalize_outcome, 'failed'::awa.job_state), ('applied', 'failed'), ('applied', 'failed')$$,
                  'the three failures are applied');
select is((select count(*) from awa.external_waits), 0::bigint, 'nothing is parked any more');
select results_eq($$select state, attempt, dlq, errors from awa.jobs where id = (select id from p)$$,
                  $$values ('failed'::awa.job_state, 1, false, '[{"at": "2030-01-01T12:00:05+00:00", "error": "no", "attempt": 1}]'::jsonb)$$,
                  'the parked job failed, attempt 1, the error appended');
select results_eq($$select state, attempt, dlq from awa.jobs where id = (select id from d)$$,
                  $$values ('failed'::awa.job_state, 1, true)$$, 'the parked job of the DLQ queue is in the DLQ');
select results_eq($$select state, attempt, dlq from awa.jobs where id = (select id from w)$$,
                  $$values ('failed'::awa.job_state, 1, true)$$, 'the waiting job of the DLQ queue is in the DLQ');
select results_eq($$select queue, failed, dlq from awa.queue_counts() order by queue$$,
                  $$values ('cb'::text, 1::bigint, 0::bigint), ('cb_dlq', 0, 2)$$, 'queue_counts counts them');

select * from finish();
rollback;
