-- A claimed row carries the job body, the new attempt (attempt + 1, run_lease
-- + 1), the receipt (claim_slot, receipt_id) of the claim batch, claimed_at =
-- p_now, and the claim batch records the instance.
begin;
select plan(10);

create temp table inserted as
select * from awa.insert_job('mail', '{"to": "x"}',
  '{"queue": "rq", "priority": 3, "max_attempts": 7, "tags": ["a"], "metadata": {"m": 1}}');
select * from awa.insert_job('mail2', '{}', '{"queue": "rq", "priority": 3}');

create temp table claimed as
select row_number() over () as ord, *
from awa.claim_ready_runtime('rq', 2, '00000000-0000-0000-0000-0000000000aa', '2030-01-01 12:00:00+00');

select results_eq(
  $$select id, kind, queue, priority, args, max_attempts, tags, metadata, errors, created_at, run_at
    from claimed where ord = 1$$,
  $$select i.id, 'mail', 'rq', 3::smallint, '{"to": "x"}'::jsonb, 7, array['a'], '{"m": 1}'::jsonb, null::jsonb, now(), now()
    from inserted i$$,
  'the claimed row carries the job body as inserted');
select results_eq($$select attempt, run_lease from claimed order by ord$$,
  $$values (1, 1::bigint), (1, 1::bigint)$$,
  'a first claim is attempt 1 with run_lease 1');
select is((select array_agg(distinct claimed_at) from claimed), array['2030-01-01 12:00:00+00'::timestamptz],
  'claimed_at is the p_now of the claim');
select is((select array_agg(distinct claim_slot) from claimed), array[awa._current_slot('claim')],
  'claim_slot is the current claim slot');
select results_eq(
  $$select c.receipt_id, c.id from claimed c order by c.ord$$,
  $$select b.batch_id * 1024 + k - 1, b.job_ids[k] from awa.claim_batches b, generate_subscripts(b.job_ids, 1) k
    where b.queue = 'rq' order by k$$,
  'receipt_id i is batch_id * 1024 + i - 1 of the claim batch holding the job');
select is((select deadline_at from claimed where ord = 1), null::timestamptz,
  'deadline_at is NULL for a queue without a deadline');
select results_eq(
  $$select instance_id, claimed_at, run_leases from awa.claim_batches where queue = 'rq'$$,
  $$values ('00000000-0000-0000-0000-0000000000aa'::uuid, '2030-01-01 12:00:00+00'::timestamptz, array[1, 1]::bigint[])$$,
  'the claim batch records the instance, the claim time and the new run_leases');
select results_eq(
  $$select j.state, j.attempt, j.run_lease, j.claimed_at from awa.jobs j join inserted i on i.id = j.id$$,
  $$values ('running'::awa.job_state, 1, 1::bigint, '2030-01-01 12:00:00+00'::timestamptz)$$,
  'awa.jobs shows the job running at attempt 1, run_lease 1');

select awa.configure_queue('rq_deadline', '{"deadline_seconds": 60}');
select * from awa.insert_job('d', '{}', '{"queue": "rq_deadline"}');
select is((select deadline_at from awa.claim_ready_runtime('rq_deadline', 1, null, '2030-01-01 12:00:00+00')),
  '2030-01-01 12:01:00+00'::timestamptz,
  'deadline_at is p_now plus the queue deadline');
select is((select deadline_at from awa.claim_batches where queue = 'rq_deadline'),
  '2030-01-01 12:01:00+00'::timestamptz,
  'the claim batch records the deadline');

select * from finish();
rollback;
