-- A member of awa_worker does a worker's whole job: registers and heartbeats
-- its process, asks queue_pending, listens, claims, and finalizes its claims
-- by every outcome (complete, retry, snooze, fail, cancel by receipt), and
-- records and reads a claim's progress, gives a claim a deadline of its own,
-- and asks which of its claims were closed (closed_attempts).
begin;
select plan(14);

select is((select count(*) from awa.insert_jobs(array['w.complete', 'w.retry', 'w.snooze', 'w.fail', 'w.cancel'],
                                                null, array_fill('{"queue": "worker_q"}'::jsonb, array[5]))),
          5::bigint, 'five jobs are enqueued (fixture, as the owner)');

set local role awa_test_worker;
select is((select count(*) from awa.heartbeat_instance('00000000-0000-0000-0000-00000000000a')), 1::bigint,
          'heartbeat_instance registers the process');
select is((select pending from awa.queue_pending('worker_q')), true, 'queue_pending sees the jobs');
select lives_ok($$select awa.listen_queues(array['worker_q'])$$, 'listen_queues listens');
create temp table c as
  select * from awa.claim_ready_runtime('worker_q', 5, '00000000-0000-0000-0000-00000000000a');
select is((select count(*) from c), 5::bigint, 'claim_ready_runtime claims the five jobs');
select is((select outcome::text || '/' || state from c, awa.set_progress(id, run_lease, claim_slot, receipt_id, '{"done": 1}') f
           where c.kind = 'w.retry'),
          'applied/running', 'set_progress records the progress of its claim');
select is((select progress from c, awa.job_progress(c.id) where c.kind = 'w.retry'), '{"done": 1}'::jsonb,
          'job_progress reads it');
select is((select outcome::text || '/' || state from c,
           awa.set_attempt_deadline(id, run_lease, claim_slot, receipt_id, now() + interval '1 hour') f
           where c.kind = 'w.retry'),
          'applied/running', 'set_attempt_deadline gives its claim a deadline');
select is((select outcome::text || '/' || state from c, awa.complete_jobs(array[id], array[run_lease], array[claim_slot],
                                                                       array[receipt_id]) f where c.kind = 'w.complete'),
          'applied/completed', 'complete_jobs completes its claim');
select is((select outcome::text || '/' || state from c, awa.retry_jobs(array[id], array[run_lease], array[claim_slot],
                                                                    array[receipt_id], array['boom']) f where c.kind = 'w.retry'),
          'applied/retryable', 'retry_jobs retries its claim');
select is((select outcome::text || '/' || state
           from c, awa.snooze_jobs(array[id], array[run_lease], array[claim_slot], array[receipt_id],
                                array[now() + interval '1 hour']) f where c.kind = 'w.snooze'),
          'applied/scheduled', 'snooze_jobs snoozes its claim');
select is((select outcome::text || '/' || state from c, awa.fail_jobs(array[id], array[run_lease], array[claim_slot],
                                                                   array[receipt_id], array['fatal']) f where c.kind = 'w.fail'),
          'applied/failed', 'fail_jobs fails its claim');
select is((select outcome::text || '/' || state from c, awa.cancel_jobs(array[id], array[run_lease], array[claim_slot],
                                                                     array[receipt_id]) f where c.kind = 'w.cancel'),
          'applied/cancelled', 'cancel_jobs cancels its claim');
select results_eq($$select c.kind from c, awa.closed_attempts(array[c.id], array[c.run_lease], array[c.claim_slot],
                                                               array[c.receipt_id]) f order by c.kind$$,
                  $$values ('w.cancel'), ('w.complete'), ('w.fail'), ('w.retry'), ('w.snooze')$$,
                  'closed_attempts finds each of its finalized claims closed');
reset role;

select * from finish();
rollback;
