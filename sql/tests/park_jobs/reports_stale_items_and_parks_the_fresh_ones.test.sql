-- A park of an attempt that is no longer open (rescued, cancelled, a wrong
-- receipt, already parked, the previous attempt of a job claimed again) is
-- stale and writes nothing; in a mixed batch the
-- fresh item parks. The stale items need no registration (no AW022).
begin;
select plan(9);

create temp table lost as select * from awa_test.claim_registered('cb_lost', '2030-01-01 12:00:00+00');
select is((select count(*) from awa.rescue_stale_claims(interval '90 seconds', 10, '2030-01-01 12:10:00+00')),
          1::bigint, 'rescue closes the lost attempt (fixture)');
create temp table cancelled as select * from awa_test.claim_registered('cb_cancel', '2030-01-01 12:20:00+00');
select state from cancelled, awa.cancel_job(cancelled.id, 'stop');
create temp table parked as select * from awa_test.claim_parked('cb_parked', '2030-01-01 12:20:00+00');
create temp table fresh as select * from awa_test.claim_registered('cb', '2030-01-01 12:20:00+00');

create function pg_temp.park(p_t text, p_receipt_delta bigint DEFAULT 0) returns text language sql as $f$
  select format('select p.job_id, p.run_lease, p.outcome, p.state from %1$s, awa.park_jobs(array[%1$s.id], array[%1$s.run_lease], array[%1$s.claim_slot], array[%1$s.receipt_id + %2$s]) p', p_t, p_receipt_delta)
$f$;
select results_eq(pg_temp.park('lost'), $$select id, run_lease, 'stale'::awa.finalize_outcome, null::awa.job_state from lost$$,
                  'a park after rescue is stale');
select results_eq(pg_temp.park('cancelled'), $$select id, run_lease, 'stale'::awa.finalize_outcome, null::awa.job_state from cancelled$$,
                  'a park after cancel_job is stale');
select results_eq(pg_temp.park('parked'), $$select id, run_lease, 'stale'::awa.finalize_outcome, null::awa.job_state from parked$$,
                  'a second park is stale');
select results_eq(pg_temp.park('fresh', 1), $$select id, run_lease, 'stale'::awa.finalize_outcome, null::awa.job_state from fresh$$,
                  'a park with a wrong receipt is stale');
select count(*) from awa.promote_due_jobs(1000, '2030-01-02 00:00:00+00');
create temp table again as select * from awa.claim_ready_runtime('cb_lost', 1, null, '2030-01-02 00:00:01+00');
select is((select run_lease from again), (select run_lease + 1 from lost), 'the rescued job is claimed again (fixture)');
select results_eq(pg_temp.park('lost'), $$select id, run_lease, 'stale'::awa.finalize_outcome, null::awa.job_state from lost$$,
                  'a park of the previous attempt after the re-claim is stale');
select awa_test.writes_nothing(
  $$select * from awa.park_jobs(array[(select id from lost), (select id from cancelled), (select id from parked)],
                                array[(select run_lease from lost), (select run_lease from cancelled), (select run_lease from parked)],
                                array[(select claim_slot from lost), (select claim_slot from cancelled), (select claim_slot from parked)],
                                array[(select receipt_id from lost), (select receipt_id from cancelled), (select receipt_id from parked)])$$,
  'stale parks write nothing');
select results_eq(
  $$select p.job_id, p.outcome from awa.park_jobs(array[(select id from lost), (select id from fresh)],
                                                  array[(select run_lease from lost), (select run_lease from fresh)],
                                                  array[(select claim_slot from lost), (select claim_slot from fresh)],
                                                  array[(select receipt_id from lost), (select receipt_id from fresh)]) p
    order by p.outcome$$,
  $$select id, 'applied'::awa.finalize_outcome from fresh union all select id, 'stale' from lost$$,
  'in a mixed batch the fresh item parks and the stale one is reported');

select * from finish();
rollback;
