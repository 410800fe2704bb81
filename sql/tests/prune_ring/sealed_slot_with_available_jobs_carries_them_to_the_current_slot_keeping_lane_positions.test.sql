-- A sealed queue slot whose only live rows are available jobs is no longer
-- skipped: prune moves those jobs into the current slot, every column and
-- lane position kept, then truncates the slot. Jobs at or below the claim
-- cursor (here completed) are not moved; the cursor does not move; awa.jobs
-- shows each moved job once, still available.
begin;
select plan(9);
-- The queue ring alone: archive retention 0 (with it on, the prune copies the
-- slot's terminal jobs to the archive first: prune_ring/archives_*).
select awa.configure_archive('{"completed_seconds": 0, "failed_seconds": 0, "cancelled_seconds": 0}');

create temp table j as select * from awa.insert_jobs(array['prune.k', 'prune.k', 'prune.k', 'prune.k'],
                                                      array['{"n": 1}', '{"n": 2}', '{"n": 3}', '{"n": 4}']::jsonb[],
                                                      array_fill('{"queue": "nq"}'::jsonb, array[4]));
create temp table c as select * from awa.claim_ready_runtime('nq', 2, null, now());
select * from awa.complete_jobs(array(select id from c), array(select run_lease from c),
                                array(select claim_slot from c), array(select receipt_id from c), now());
create temp table before as select * from awa.ready_entries r where r.job_id not in (select id from c);
create temp table heads as select h.lane_id, h.claim_seq from awa.claim_cursors h where h.lane_id in (select lane_id from before);
select * from awa.rotate_ring('queue', now());

select results_eq(
  $$select ring, outcome, slot, generation, detail from awa.prune_ring('queue')$$,
  $$values ('queue'::text, 'pruned'::text, 0, 1::bigint, 'truncated slot 0 after moving 2 available jobs to slot 1'::text)$$,
  'the sealed slot 0 holding 2 available jobs is pruned after moving them to the current slot 1');

select is((select count(*)::int from before), 2, 'setup: two of the four jobs were available in slot 0');
select is((select count(*)::int from awa.ready_entries_0), 0, 'slot 0 is truncated (the completed jobs'' rows with it)');
select set_eq(
  $$select lane_id, lane_seq, job_id, run_lease, attempt, max_attempts, priority, queue, kind, args, tags, metadata,
           errors, created_at, run_at from awa.ready_entries_1$$,
  $$select lane_id, lane_seq, job_id, run_lease, attempt, max_attempts, priority, queue, kind, args, tags, metadata,
           errors, created_at, run_at from before$$,
  'slot 1 holds exactly the two available rows, every column kept (lane position included)');
select set_eq($$select h.lane_id, h.claim_seq from awa.claim_cursors h where h.lane_id in (select lane_id from before)$$,
              $$select * from heads$$, 'the claim cursor did not move');
select bag_eq($$select id, state::text from awa.jobs where queue = 'nq'$$,
              $$select r.job_id, 'available' from before r$$,
              'awa.jobs shows each moved job once, available (the completed ones went with slot 0)');
select is((select count(*)::int from awa.ready_entries where job_id in (select job_id from before)), 2,
          'no job has two ready rows');
select is((select count(*)::int from awa.ready_tombstones), 0, 'nothing was tombstoned');
select results_eq($$select id from awa.claim_ready_runtime('nq', 10, null, now())$$,
                  $$select job_id from before order by lane_seq$$,
                  'the moved jobs are claimed in their lane order');

select * from finish();
rollback;
