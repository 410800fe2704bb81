-- A paused queue claims nothing and reports nothing pending, though jobs are
-- available; producers still insert into it; the attempt that was running
-- when it was paused completes; another queue is claimed as usual; pausing
-- again keeps the first pause's time.
begin;
select plan(8);

create temp table r as select * from awa_test.claim_one('pause.k', '{}', '{"queue": "pq"}', now());
select * from awa.insert_job('pause.k', '{}', '{"queue": "pq"}');
select * from awa.insert_job('pause.k', '{}', '{"queue": "other"}');

select results_eq($$select queue, paused, paused_at from awa.pause_queue('pq', '2026-01-01 00:00Z')$$,
                  $$values ('pq'::text, true, '2026-01-01 00:00Z'::timestamptz)$$, 'pause_queue reports the queue paused');
select is((select count(*) from awa.claim_ready_runtime('pq', 10)), 0::bigint, 'a claim of the paused queue claims nothing');
select results_eq($$select pending, ready from awa.queue_pending('pq')$$, $$values (false, false)$$,
                  'queue_pending reports nothing pending');
select lives_ok($$select * from awa.insert_job('pause.k', '{}', '{"queue": "pq"}')$$, 'producers still insert');
select is((select available from awa.queue_counts('pq')), 2::bigint, 'its jobs wait, available');
select results_eq($$select outcome from r, awa.complete_jobs(array[r.id], array[r.run_lease], array[r.claim_slot], array[r.receipt_id])$$,
                  $$values ('applied'::awa.finalize_outcome)$$, 'the attempt running when it was paused completes');
select is((select count(*) from awa.claim_ready_runtime('other', 10)), 1::bigint, 'another queue is claimed as usual');
select results_eq($$select paused_at from awa.pause_queue('pq')$$, $$values ('2026-01-01 00:00Z'::timestamptz)$$,
                  'pausing again keeps the first pause''s time');

select * from finish();
rollback;
