-- A registration whose attempt closed otherwise (the handler completed
-- without a callback; an operator cancelled the attempt after a resume the
-- handler never took; stale-heartbeat rescue after such a resume) is deleted
-- once its timeout passed, and nothing is retried for it; a registration not
-- yet timed out stays.
begin;
select plan(3);

create temp table done as select * from awa_test.claim_registered('cb_done', '2030-01-01 12:00:00+00', interval '1 minute');
select outcome from done, awa.complete_jobs(array[id], array[run_lease], array[claim_slot], array[receipt_id]);
create temp table cancelled as select * from awa_test.claim_registered('cb_cancel', '2030-01-01 12:00:00+00', interval '1 minute');
select state from cancelled, awa.resume_external(callback_id, '{}');
select state from cancelled, awa.cancel_job(id);
create temp table lost as select * from awa_test.claim_registered('cb_lost', '2030-01-01 12:00:00+00', interval '1 minute');
select state from lost, awa.resume_external(callback_id, '{}');
select count(*) from awa.rescue_stale_claims(interval '90 seconds', 10, '2030-01-01 12:03:00+00');
create temp table young as select * from awa_test.claim_registered('cb_young', '2030-01-01 12:00:00+00', interval '1 hour');
select outcome from young, awa.complete_jobs(array[id], array[run_lease], array[claim_slot], array[receipt_id]);

select is_empty($$select * from awa.rescue_expired_callbacks(10, '2030-01-01 12:05:00+00')$$, 'nothing is retried');
select results_eq($$select callback_id from awa.callbacks$$, $$select callback_id from young$$,
                  'the timed-out registrations are deleted, the young one stays');
select results_eq($$select queue, state from awa.jobs order by queue$$,
                  $$values ('cb_cancel'::text, 'cancelled'::awa.job_state), ('cb_done', 'completed'), ('cb_lost', 'retryable'),
                           ('cb_young', 'completed')$$,
                  'each job keeps the state its closer gave it');

select * from finish();
rollback;
