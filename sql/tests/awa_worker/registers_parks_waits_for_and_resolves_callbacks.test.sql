-- A member of awa_worker runs both callback modes of its claims: registers a
-- callback, waits in sequence (take_callback_result), parks a job
-- (park_jobs), and resolves tokens by any of the four resolutions (a worker
-- may be the callback's receiver too).
begin;
select plan(9);

select is((select count(*) from awa.insert_jobs(array['w.seq', 'w.park', 'w.fail', 'w.retry'], null,
                                                array_fill('{"queue": "worker_cb"}'::jsonb, array[4]))),
          4::bigint, 'four jobs are enqueued (fixture, as the owner)');
create temp table c (id bigint, run_lease bigint, claim_slot int, receipt_id bigint, kind text, callback_id uuid);
grant all on c to awa_test_worker;

set local role awa_test_worker;
insert into c select k.id, k.run_lease, k.claim_slot, k.receipt_id, k.kind, r.callback_id
  from awa.claim_ready_runtime('worker_cb', 4) k
  cross join lateral awa.register_callback(k.id, k.run_lease, k.claim_slot, k.receipt_id, interval '1 hour') r;
select is((select count(*) from c where callback_id is not null), 4::bigint, 'register_callback registers its four claims');
select is((select status from c, awa.take_callback_result(id, run_lease, claim_slot, receipt_id, callback_id) where kind = 'w.seq'),
          'waiting', 'take_callback_result waits');
select is((select outcome::text || '/' || state from c, awa.resume_external(callback_id, '{"n": 1}') where kind = 'w.seq'),
          'applied/running', 'resume_external resumes the waiting handler');
select is((select result from c, awa.take_callback_result(id, run_lease, claim_slot, receipt_id, callback_id) where kind = 'w.seq'),
          '{"n": 1}'::jsonb, 'take_callback_result takes the payload');
select is((select outcome::text || '/' || state from c, awa.park_jobs(array[id], array[run_lease], array[claim_slot], array[receipt_id])
           where kind = 'w.park'), 'applied/waiting_external', 'park_jobs parks a job');
select is((select outcome::text || '/' || state from c, awa.complete_external(callback_id, '{}') where kind = 'w.park'),
          'applied/completed', 'complete_external completes it');
select is((select outcome::text || '/' || state from c, awa.fail_external(callback_id, 'no') where kind = 'w.fail'),
          'applied/failed', 'fail_external fails a job');
select is((select outcome::text || '/' || state from c, awa.retry_external(callback_id, 'later') where kind = 'w.retry'),
          'applied/retryable', 'retry_external retries a job');
reset role;

select * from finish();
rollback;
