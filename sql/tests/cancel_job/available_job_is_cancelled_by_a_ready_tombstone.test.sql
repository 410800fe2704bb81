-- Cancelling an available job spends its lane position with a ready tombstone:
-- the ready row stays untouched, the job is cancelled and is never claimed.
begin;
select plan(7);

create temp table j as select * from awa.insert_job('cancel.k', '{}', '{"queue": "cq"}');
create temp table k as select * from awa.insert_job('cancel.k', '{}', '{"queue": "cq"}');
create temp table ready_before as select * from awa.ready_entries where job_id = (select id from j);

select results_eq(
  $$select job_id, run_lease, outcome, state from awa.cancel_job((select id from j), 'duplicate', now())$$,
  $$select id, 0::bigint, 'applied'::awa.finalize_outcome, 'cancelled'::awa.job_state from j$$,
  'cancel_job of an available job is applied');

select results_eq(
  $$select job_id, lane_id, lane_seq, ready_slot from awa.ready_tombstones$$,
  $$select job_id, lane_id, lane_seq, ready_slot from ready_before$$,
  'a tombstone spends the job''s lane position');

select results_eq($$select * from awa.ready_entries where job_id = (select id from j)$$, $$select * from ready_before$$,
                  'the ready row is still there, unchanged');

select results_eq(
  $$select state, errors -> -1 ->> 'error' from awa.jobs where id = (select id from j)$$,
  $$values ('cancelled'::awa.job_state, 'duplicate')$$,
  'awa.jobs shows the job cancelled (not available) with the reason');

select results_eq($$select id from awa.claim_ready_runtime('cq', 10, null, now())$$, $$select id from k$$,
                  'a claim skips the cancelled job and takes the next one');

select is_empty($$select * from awa.claim_ready_runtime('cq', 10, null, now())$$, 'nothing else is claimable');

select is((select count(*)::int from awa.jobs where id = (select id from j)), 1, 'the cancelled job shows once in awa.jobs');

select * from finish();
rollback;
