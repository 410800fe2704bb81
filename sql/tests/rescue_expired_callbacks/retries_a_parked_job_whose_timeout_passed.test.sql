-- A parked job whose callback timeout passed is retried: it leaves the
-- parked plane, retryable, the parked attempt counted, 'callback timed out'
-- appended; a job parked until later, or whose timeout_at is now, stays
-- parked. The callback's late completion is then stale and writes nothing.
begin;
select plan(7);

create temp table due as select * from awa_test.claim_parked('cb', '2030-01-01 12:00:00+00', interval '1 minute');
create temp table later as select * from awa_test.claim_parked('cb', '2030-01-01 12:00:00+00', interval '1 hour');
create temp table edge as select * from awa_test.claim_parked('cb', '2030-01-01 12:04:00+00', interval '1 minute');

select results_eq($$select job_id, run_lease, outcome, state from awa.rescue_expired_callbacks(10, '2030-01-01 12:05:00+00')$$,
                  $$select id, run_lease, 'applied'::awa.finalize_outcome, 'retryable'::awa.job_state from due$$,
                  'the timed-out parked job is retried, and only it');
select results_eq($$select state, attempt, errors from awa.jobs where id = (select id from due)$$,
                  $$values ('retryable'::awa.job_state, 1,
                            '[{"at": "2030-01-01T12:05:00+00:00", "error": "callback timed out", "attempt": 1}]'::jsonb)$$,
                  'retryable, the parked attempt counted, the timeout in its errors');
select results_eq($$select job_id from awa.external_waits order by job_id$$,
                  $$select id from later union all select id from edge order by 1$$,
                  'the others stay parked (one times out at this very instant)');
select cmp_ok((select run_at from awa.jobs where id = (select id from due)), '>', '2030-01-01 12:05:00+00'::timestamptz,
              'it runs again after the retry backoff');
prepare late as select o.outcome, o.state from due, awa.complete_external(due.callback_id, '{}') o;
select results_eq('late', $$values ('stale'::awa.finalize_outcome, null::awa.job_state)$$, 'the late completion is stale');
select awa_test.writes_nothing('execute late', 'the late completion writes nothing');
select is((select count(*) from awa.rescue_expired_callbacks(10, '2030-01-01 12:05:00+00')), 0::bigint,
          'a second rescue at the same time finds nothing');

select * from finish();
rollback;
