-- The session remembers the lane tips at which it found a queue quiet, and
-- checks the queue again only once one of them moves: a drained queue is
-- remembered; a new insert (a new block of positions) brings it back at the
-- next call; a remembered tip that does not match the lane's is checked
-- again, never trusted.
begin;
select plan(6);

select * from awa.insert_job('k', '{}', '{"queue": "qm"}');
select count(*) from awa.claim_ready_runtime('qm', 10);
select is_empty($$select * from awa.queues_ready(array['qm'])$$, 'a drained queue is quiet');
select ok(current_setting('awa.ready_memo_' || 'awa'::regnamespace::oid, true)::jsonb <> '{}',
          'the session remembers its lanes and their tips');
select is_empty($$select * from awa.queues_ready(array['qm'])$$, 'asked again, still quiet');

select * from awa.insert_job('k', '{}', '{"queue": "qm"}');
select results_eq($$select queue, ready from awa.queues_ready(array['qm'])$$, $$values ('qm'::text, true)$$,
                  'a job inserted after the queue was remembered quiet is found');

select count(*) from awa.claim_ready_runtime('qm', 10);
select is_empty($$select * from awa.queues_ready(array['qm'])$$, 'claimed, quiet again');

select * from awa.insert_job('k', '{}', '{"queue": "qm"}');
select set_config('awa.ready_memo_' || 'awa'::regnamespace::oid,
                  (select jsonb_object_agg(lane_id, 0)::text from awa.queue_lanes where queue = 'qm'),
                  false);
select results_eq($$select queue from awa.queues_ready(array['qm'])$$, $$values ('qm'::text)$$,
                  'lanes remembered at other tips are checked again: the new job is found');

select * from finish();
rollback;
