-- configure_queue(q, deadline_seconds) makes every later claim of the queue
-- carry deadline_at = claim time + deadline; other queues get none.
begin;
select plan(3);

select * from awa.configure_queue('dq', '{"deadline_seconds": 5}');
select * from awa.insert_job('deadline.k', '{}', '{"queue": "dq"}');
select * from awa.insert_job('deadline.k', '{}', '{"queue": "nodeadline"}');

select is((select deadline_at from awa.claim_ready_runtime('dq', 1, null, now() + interval '1 second')),
          now() + interval '6 seconds', 'the claim returns deadline_at = claimed_at + 5 s');
select is((select deadline_at from awa.claim_batches where queue = 'dq'), now() + interval '6 seconds',
          'the claim batch records the deadline');
select is((select deadline_at from awa.claim_ready_runtime('nodeadline', 1, null, now())), null::timestamptz,
          'a claim of a queue without a deadline has no deadline_at');

select * from finish();
rollback;
