-- A job's checkpoint outlives every way its attempt ends but success: retry,
-- snooze, cancel (by receipt and by id), fail, and stale-heartbeat rescue
-- each leave it readable, with the run_lease that wrote it.
begin;
select plan(6);

select * from awa.insert_jobs(array['retry', 'snooze', 'cancel', 'cancel_by_id', 'fail', 'rescue'], null,
                              array_fill('{"queue": "jp"}'::jsonb, array[6]));
create temp table c as select * from awa.claim_ready_runtime('jp', 6, null, '2030-01-01 12:00:00+00');
select count(*) from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id,
                                         jsonb_build_object('kind', c.kind), '2030-01-01 12:00:01+00');

select count(*) from c, awa.retry_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id], array['boom'])
where c.kind = 'retry';
select count(*) from c, awa.snooze_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id],
                                        array['2030-01-02 00:00:00+00'::timestamptz])
where c.kind = 'snooze';
select count(*) from c, awa.cancel_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id])
where c.kind = 'cancel';
select count(*) from c, awa.cancel_job(c.id) where c.kind = 'cancel_by_id';
select count(*) from c, awa.fail_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id], array['fatal'])
where c.kind = 'fail';
select count(*) from awa.rescue_stale_claims(interval '90 seconds', 10, '2030-01-01 12:10:00+00');

select results_eq(
  format($$select j.state::text, p.run_lease, p.progress ->> 'kind' from c
           join awa.jobs j on j.id = c.id, awa.job_progress(c.id) p where c.kind = %L$$, k),
  format($$select %L::text, run_lease, kind from c where kind = %L$$, s, k),
  format('after %s the job is %s and keeps its checkpoint', k, s))
from (values ('retry', 'retryable'), ('snooze', 'scheduled'), ('cancel', 'cancelled'), ('cancel_by_id', 'cancelled'),
             ('fail', 'failed'), ('rescue', 'retryable')) as v (k, s);

select * from finish();
rollback;
