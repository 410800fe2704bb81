-- awa.jobs shows waiting_external for an open attempt with an unresolved
-- registration and for a parked job, with the waiting attempt counted
-- (attempt = attempts before it + 1) and its run_lease: a job parked on its
-- second attempt shows attempt 2. A resumed waiting attempt shows running;
-- a resumed parked job shows available, the parked attempt not counted.
begin;
select plan(4);

create temp table w as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00');
create temp table p as select * from awa_test.claim_parked('cb', '2030-01-01 12:00:00+00');
-- a second attempt parks: the first was retried
create temp table first as select * from awa_test.claim_one('cb.k', '{}', '{"queue": "cb2"}', '2030-01-01 12:00:00+00');
select state from first, awa.retry_jobs(array[id], array[run_lease], array[claim_slot], array[receipt_id], array['boom'],
                                        array['2030-01-01 12:00:01+00'::timestamptz], '2030-01-01 12:00:01+00');
select count(*) from awa.promote_due_jobs(1000, '2030-01-01 12:00:02+00');
create temp table second as select * from awa.claim_ready_runtime('cb2', 1, null, '2030-01-01 12:00:03+00');
select outcome from second, awa.register_callback(id, run_lease, claim_slot, receipt_id, interval '1 hour');
select state from second, awa.park_jobs(array[id], array[run_lease], array[claim_slot], array[receipt_id]);

select results_eq($$select id, state, attempt, run_lease, claimed_at from awa.jobs where id = (select id from w)$$,
                  $$select id, 'waiting_external'::awa.job_state, 1, run_lease, '2030-01-01 12:00:00+00'::timestamptz from w$$,
                  'the attempt waiting in sequence: waiting_external, attempt 1, still claimed');
select results_eq($$select id, state, attempt, run_lease, errors from awa.jobs where id in ((select id from p), (select id from second)) order by id$$,
                  $$select p.id, 'waiting_external'::awa.job_state, 1, p.run_lease, null::jsonb from p
                    union all select s.id, 'waiting_external', 2, s.run_lease,
                                     '[{"at": "2030-01-01T12:00:01+00:00", "error": "boom", "attempt": 1}]'::jsonb from second s
                    order by 1$$,
                  'parked jobs: waiting_external, the parked attempt counted (1, and 2 after a retry)');
select state from w, awa.resume_external(w.callback_id, '{}');
select state from p, awa.resume_external(p.callback_id, '{}');
select results_eq($$select id, state, attempt from awa.jobs where id in ((select id from w), (select id from p)) order by id$$,
                  $$select id, 'running'::awa.job_state, 1 from w union all select id, 'available', 0 from p order by 1$$,
                  'resumed: the waiting attempt runs, attempt 1; the parked job is available, attempt 0');
select is((select count(*) - count(distinct id) from awa.jobs), 0::bigint, 'no job appears twice');

select * from finish();
rollback;
