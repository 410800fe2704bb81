-- Priority aging (configure_queue aging_seconds): a lane whose oldest job
-- waited k intervals is claimed as if k priorities higher, never above 1;
-- among lanes of one effective priority the oldest job goes first. Without
-- aging, priority order alone.
begin;
select plan(5);

-- Without aging: the fresh priority-1 job first, though the priority-4 job
-- waited ten minutes.
select * from awa.insert_job('age.k', '{"n": "old4"}', jsonb_build_object('queue', 'nq', 'priority', 4,
                                                                           'run_at', now() - interval '10 minutes'));
select * from awa.insert_job('age.k', '{"n": "new1"}', '{"queue": "nq", "priority": 1}');
select is((select args ->> 'n' from awa.claim_ready_runtime('nq', 1)), 'new1', 'without aging the priority-1 job goes first');

select * from awa.configure_queue('aq', '{"aging_seconds": 60}');
select * from awa.insert_job('age.k', '{"n": "old4"}', jsonb_build_object('queue', 'aq', 'priority', 4,
                                                                           'run_at', now() - interval '10 minutes'));
select * from awa.insert_job('age.k', '{"n": "new1"}', '{"queue": "aq", "priority": 1}');
select is((select args ->> 'n' from awa.claim_ready_runtime('aq', 1)), 'old4',
          'with 60 s aging, a priority-4 job that waited ten minutes counts as priority 1 and, older, goes first');
select is((select args ->> 'n' from awa.claim_ready_runtime('aq', 1)), 'new1', 'then the priority-1 job');

-- 90 s at 60 s aging: one level (priority 4 counts as 3): after a fresh 2,
-- before a fresh 3 (same effective priority, older).
select * from awa.configure_queue('bq', '{"aging_seconds": 60}');
select * from awa.insert_job('age.k', '{"n": "old4"}', jsonb_build_object('queue', 'bq', 'priority', 4,
                                                                           'run_at', now() - interval '90 seconds'));
select * from awa.insert_job('age.k', '{"n": "new2"}', '{"queue": "bq", "priority": 2}');
select * from awa.insert_job('age.k', '{"n": "new3"}', '{"queue": "bq", "priority": 3}');
select results_eq($$select args ->> 'n' from awa.claim_ready_runtime('bq', 3)$$,
                  $$values ('new2'), ('old4'), ('new3')$$,
                  'one interval lifts priority 4 to 3: after the fresh 2, before the fresh 3');

select * from awa.configure_queue('bq', '{"aging_seconds": null}');
select is((select aging from awa.queue_options where queue = 'bq'), null::interval, 'aging_seconds null removes aging');

select * from finish();
rollback;
