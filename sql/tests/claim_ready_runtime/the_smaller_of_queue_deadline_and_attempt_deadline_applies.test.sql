-- When the queue has a deadline and the claimer gives an attempt_deadline,
-- deadline_at = claimed_at + the smaller of the two, whichever it is.
begin;
select plan(3);

select * from awa.configure_queue('dq', '{"deadline_seconds": 300}');
select * from awa.insert_jobs(array['k', 'k', 'k'], array['{}', '{}', '{}']::jsonb[],
                              array['{"queue": "dq"}', '{"queue": "dq"}', '{"queue": "dq"}']::jsonb[]);

select is((select deadline_at from awa.claim_ready_runtime('dq', 1, null, '2030-01-01 12:00:00+00',
                                                           p_attempt_deadline => interval '1 minute')),
          '2030-01-01 12:01:00+00'::timestamptz, 'a shorter attempt_deadline wins over the queue deadline');
select is((select deadline_at from awa.claim_ready_runtime('dq', 1, null, '2030-01-01 12:00:00+00',
                                                           p_attempt_deadline => interval '1 hour')),
          '2030-01-01 12:05:00+00'::timestamptz, 'a shorter queue deadline wins over the attempt_deadline');
select is((select deadline_at from awa.claim_ready_runtime('dq', 1, null, '2030-01-01 12:00:00+00')),
          '2030-01-01 12:05:00+00'::timestamptz, 'without attempt_deadline the queue deadline applies');

select * from finish();
rollback;
