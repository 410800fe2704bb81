-- A scheduled job is taken out of the backlog and made available now; a
-- retryable one too, with its attempts kept; a DLQ job is retried as
-- awa.retry_dlq_job does (out of the DLQ, from attempt 0).
begin;
select plan(4);

create temp table s as select * from awa.insert_job('retry.k', '{}', jsonb_build_object('queue', 'rq', 'run_at', now() + interval '1 day'));
select results_eq($$select r.state, r.run_at from s, awa.retry_job(s.id) as r$$,
                  $$values ('available'::awa.job_state, now())$$, 'the scheduled job is available now');

create temp table c as select * from awa_test.claim_one('retry.k', '{}', '{"queue": "rq2", "max_attempts": 5}', now());
select count(*) from c, awa.retry_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id],
                                        array['again'], array[now() + interval '1 hour']);
select results_eq($$select r.state from c, awa.retry_job(c.id) as r$$, $$values ('available'::awa.job_state)$$,
                  'the retryable job is available now');
select is((select x.attempt from c, awa.jobs x where x.id = c.id), 1, 'with its attempt kept');

create temp table d as select * from awa_test.dlq_claim('retry.k', '{}', '{"queue": "rqd"}', now());
select results_eq($$select r.state, (select x.dlq from awa.jobs x where x.id = d.id), (select x.attempt from awa.jobs x where x.id = d.id)
                    from d, awa.retry_job(d.id) as r$$,
                  $$values ('available'::awa.job_state, false, 0)$$, 'the DLQ job leaves the DLQ, available from attempt 0');

select * from finish();
rollback;
