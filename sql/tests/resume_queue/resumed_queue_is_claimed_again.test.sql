-- Resuming a paused queue makes it claimable again (its NOTIFY, sent at
-- commit, is checked by driver's TestPausedQueueIdlesAndResumeWakesItsWorkers).
begin;
select plan(4);

select * from awa.insert_job('pause.k', '{}', '{"queue": "rq"}');
select * from awa.pause_queue('rq');
select is((select count(*) from awa.claim_ready_runtime('rq', 10)), 0::bigint, 'paused, it claims nothing (fixture)');

select results_eq($$select queue, paused, paused_at from awa.resume_queue('rq')$$,
                  $$values ('rq'::text, false, null::timestamptz)$$, 'resume_queue reports the queue not paused');
select results_eq($$select pending, ready from awa.queue_pending('rq')$$, $$values (true, true)$$,
                  'queue_pending reports its job ready again');
select is((select count(*) from awa.claim_ready_runtime('rq', 10)), 1::bigint, 'a claim takes its job');

select * from finish();
rollback;
