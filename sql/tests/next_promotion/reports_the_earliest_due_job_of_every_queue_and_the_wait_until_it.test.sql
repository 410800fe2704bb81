-- awa.next_promotion reports the earliest run_at of the whole backlog (every
-- queue, scheduled and retryable jobs alike) and the wait from now until it;
-- a job already due gives a zero wait, never a negative one. Jobs due now
-- (ready rows) do not count.
begin;
select plan(7);

select awa.insert_job('np.k', '{}', jsonb_build_object('queue', 'np_a', 'run_at', now() + interval '60 seconds'));
select awa.insert_job('np.k', '{}', jsonb_build_object('queue', 'np_b', 'run_at', now() + interval '10 seconds'));
select awa.insert_job('np.k', '{}', '{"queue": "np_c"}');

select is((select due_at from awa.next_promotion()), now() + interval '10 seconds',
          'the due time is the earliest run_at, of another queue than the first insert');
select is((select wait_for from awa.next_promotion()), interval '10 seconds', 'the wait runs from now until it');
select is((select wait_for from awa.next_promotion(now() + interval '4 seconds')), interval '6 seconds',
          'a later now gives a shorter wait');
select is((select wait_for from awa.next_promotion(now() + interval '30 seconds')), interval '0',
          'a job due already gives a zero wait, not a negative one');

-- A retryable job due before the scheduled ones: claim the ready job, retry it
-- at +5 s.
create temp table c as select * from awa.claim_ready_runtime('np_c', 1, gen_random_uuid());
select is((select state from awa.retry_jobs(array[(select id from c)], array[(select run_lease from c)],
                                            array[(select claim_slot from c)], array[(select receipt_id from c)],
                                            array['boom'], array[now() + interval '5 seconds'])),
          'retryable'::awa.job_state, 'the job is retried at +5 s (fixture)');
select is((select due_at from awa.next_promotion()), now() + interval '5 seconds',
          'a retryable job counts as the scheduled ones do');

select is((select due_at from awa.next_promotion(now() + interval '1 hour')), now() + interval '5 seconds',
          'the due time does not depend on now');

select * from finish();
rollback;
