-- A cancel works for every (job_id, run_lease). It needs no retry time, but
-- awa._route_closed computes the backoff for every item anyway, and the
-- backoff jitter hashes job_id + run_lease with hashint8(), which returns
-- -2147483648 for 963809240 (and two other values below 2^32); abs() of that
-- overflows int4.
-- Job ids come from a sequence, so the job is planted with id 963809239
-- directly in a fresh lane, shard 0 of priority 2 (the lane is created inside this
-- transaction, so it does not outlive the rollback); its first claim gets
-- run_lease 1, and 963809239 + 1 = 963809240.
begin;
select plan(3);

select * from awa.insert_job('seed', '{}', '{"queue": "jitter_cancel"}');
insert into awa.ready_entries (ready_slot, lane_id, lane_seq, job_id, run_lease, attempt, max_attempts, priority,
  queue, kind, args, tags, metadata, errors, created_at, run_at)
select awa._current_slot('queue'), l.lane_id, nextval(l.lane_seq) * 1024, 963809239, 0, 0, 25, l.priority, l.queue,
       'planted', '{}', '{}', '{}', null, now(), now()
from awa.queue_lanes l where l.queue = 'jitter_cancel' and l.priority = 2 and l.shard = 0;

create temp table claimed as
select * from awa.claim_ready_runtime('jitter_cancel', 10, null, '2030-01-01 12:00:00+00') where kind = 'planted';
select results_eq($$select id, run_lease from claimed$$, $$values (963809239::bigint, 1::bigint)$$,
  'setup: job 963809239 is claimed with run_lease 1');

select lives_ok($$select * from awa.cancel_jobs(array(select id from claimed), array(select run_lease from claimed), array(select claim_slot from claimed), array(select receipt_id from claimed), array['stop'], '2030-01-01 12:00:10+00')$$,
  'a cancel of job 963809239 at run_lease 1 does not raise');
select is((select state from awa.jobs where id = 963809239), 'cancelled'::awa.job_state,
  'the job ends cancelled');

select * from finish();
rollback;
