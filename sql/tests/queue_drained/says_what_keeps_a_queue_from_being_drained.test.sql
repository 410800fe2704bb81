-- queue_drained says what keeps a queue from being drained: an available job
-- (paused queue or not), an open attempt, a scheduled job whose time has
-- come; a job scheduled later and a parked job do not count, nor does
-- another queue's work.
begin;
select plan(8);

select is((select drained from awa.queue_drained('dq')), true, 'a queue with no jobs is drained');

select * from awa.insert_job('drain.k', '{}', '{"queue": "dq"}');
select * from awa.insert_job('drain.k', '{}', '{"queue": "other"}');
select results_eq($$select drained, available, running, due from awa.queue_drained('dq')$$,
                  $$values (false, true, false, false)$$, 'an available job keeps it from being drained');
select * from awa.pause_queue('dq');
select results_eq($$select drained, available from awa.queue_drained('dq')$$, $$values (false, true)$$,
                  'paused, its available job still counts');
select * from awa.resume_queue('dq');

create temp table c as select * from awa.claim_ready_runtime('dq', 1);
select results_eq($$select drained, available, running, due from awa.queue_drained('dq')$$,
                  $$values (false, false, true, false)$$, 'a running job keeps it from being drained');
select count(*) from c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id]);
select is((select drained from awa.queue_drained('dq')), true, 'once it completes the queue is drained');

select * from awa.insert_job('drain.k', '{}', jsonb_build_object('queue', 'dq', 'run_at', now() + interval '1 hour'));
select is((select drained from awa.queue_drained('dq')), true, 'a job scheduled for later does not count');
select results_eq($$select drained, due from awa.queue_drained('dq', now() + interval '2 hours')$$,
                  $$values (false, true)$$, 'once its time has come (not yet promoted) it does');

create temp table p as select * from awa_test.claim_one('drain.k', '{}', '{"queue": "dp"}', now());
select count(*) from p, awa.register_callback(p.id, p.run_lease, p.claim_slot, p.receipt_id, interval '1 hour');
select count(*) from p, awa.park_jobs(array[p.id], array[p.run_lease], array[p.claim_slot], array[p.receipt_id]);
select is((select drained from awa.queue_drained('dp')), true, 'a parked job does not count');

select * from finish();
rollback;
