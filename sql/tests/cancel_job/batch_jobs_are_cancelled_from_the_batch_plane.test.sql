-- awa.cancel_job finds a job of a batch row (awa.ready_batches) by id: an
-- available one is cancelled by a ready tombstone at its position (the row is
-- not touched) with a snapshot of its own item's body; a running one's
-- attempt is closed as a worker cancel; a completed one raises AW021 naming
-- its state and writes nothing. Per-row jobs of the same lane are untouched.
begin;
select plan(8);

create temp table p1 as select awa.insert_job('cb.p', '{"p": 1}', '{"queue": "cbq"}') as j;
create temp table ids as
select awa_test.batch_row(array['cb.a', 'cb.a', 'cb.a', 'cb.b'],
                          array['{"n": 1}', '{"n": 2}', '{"n": 3}', '{"n": 4}']::jsonb[],
                          array['{"queue": "cbq"}', '{"queue": "cbq"}', '{"queue": "cbq"}',
                                '{"queue": "cbq", "tags": ["t"]}']::jsonb[]) as ids;
create temp table c0 as select * from awa.claim_ready_runtime('cbq', 1, null, now());
create temp table c as select * from awa_test.claim_batch_jobs((select ids[1:2] from ids), now());
create temp table done as
select awa.complete_jobs(array[id], array[run_lease], array[claim_slot], array[receipt_id], now())
from c where id = (select ids[1] from ids);
create temp table row_before as select b.* from awa.ready_batches b where b.queue = 'cbq';

select results_eq(
  $$select job_id, run_lease, outcome, state from awa.cancel_job((select ids[4] from ids), 'not wanted')$$,
  $$select (select ids[4] from ids), 0::bigint, 'applied'::awa.finalize_outcome, 'cancelled'::awa.job_state$$,
  'an available batch job is cancelled');
select results_eq(
  $$select t.job_id, t.lane_seq - b.first_seq from awa.ready_tombstones t, awa.ready_batches b
    where b.queue = 'cbq' and t.lane_id = b.lane_id$$,
  $$select (select ids[4] from ids), 3::bigint$$,
  'its position in the row is tombstoned');
select results_eq(
  $$select kind, args, tags, state, errors -> 0 ->> 'error' from awa.done_entries where job_id = (select ids[4] from ids)$$,
  $$values ('cb.b'::text, '{"n": 4}'::jsonb, '{t}'::text[], 'cancelled'::awa.job_state, 'not wanted'::text)$$,
  'its cancelled snapshot holds its item''s kind, args and tags');
select bag_eq($$select b.* from awa.ready_batches b where b.queue = 'cbq'$$, $$select * from row_before$$,
              'the batch row is not touched');

select results_eq(
  $$select job_id, run_lease, outcome, state from awa.cancel_job((select ids[2] from ids))$$,
  $$select (select ids[2] from ids), 1::bigint, 'applied'::awa.finalize_outcome, 'cancelled'::awa.job_state$$,
  'a running batch job''s attempt is cancelled');

select * from awa_test.raises_writing_nothing(
  format('select * from awa.cancel_job(%s)', (select ids[1] from ids)), 'AW021',
  format('awa: job %s is already completed', (select ids[1] from ids)),
  'cancelling a completed batch job raises AW021 naming its state');

select results_eq(
  $$select id, state from awa.jobs where queue = 'cbq' order by id$$,
  $$select (select (j).id from p1), 'running'::awa.job_state
    union all select ids[1], 'completed' from ids union all select ids[2], 'cancelled' from ids
    union all select ids[3], 'available' from ids union all select ids[4], 'cancelled' from ids$$,
  'the lane''s jobs of both planes show their states after the cancels');

select * from finish();
rollback;
