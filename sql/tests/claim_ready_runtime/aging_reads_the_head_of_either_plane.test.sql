-- Priority aging reads a lane's head, the job at its lowest position above
-- the cursor in either plane: a batch row's item run_at (its item_run_ats,
-- else the row's created_at) lifts its lane as a per-row job's does, and a
-- fresh per-row job ahead of old batch items keeps its lane's own priority.
begin;
select plan(4);

select * from awa.configure_queue('ab', '{"aging_seconds": 60}');
select awa_test.batch_row(array['ab.k', 'ab.k'], array['{"n": "old4a"}', '{"n": "old4b"}']::jsonb[],
                          array[jsonb_build_object('queue', 'ab', 'priority', 4, 'run_at', now() - interval '10 minutes'),
                                jsonb_build_object('queue', 'ab', 'priority', 4, 'run_at', now() - interval '10 minutes')]);
select * from awa.insert_job('ab.k', '{"n": "new1"}', '{"queue": "ab", "priority": 1}');
select is((select args ->> 'n' from awa.claim_ready_runtime('ab', 1)), 'old4a',
          'a batch item that waited ten minutes at priority 4 counts as priority 1 and, older, goes first');
select is((select args ->> 'n' from awa.claim_ready_runtime('ab', 1)), 'old4b',
          'its next item is the head now, as old: it goes first too');

select * from awa.configure_queue('ac', '{"aging_seconds": 60}');
select * from awa.insert_job('ac.k', '{"n": "new4"}', '{"queue": "ac", "priority": 4}');
select awa_test.batch_row(array['ac.k'], array['{"n": "old4"}']::jsonb[],
                          array[jsonb_build_object('queue', 'ac', 'priority', 4, 'run_at', now() - interval '10 minutes')]);
select * from awa.insert_job('ac.k', '{"n": "new2"}', '{"queue": "ac", "priority": 2}');
select results_eq($$select args ->> 'n' from awa.claim_ready_runtime('ac', 3)$$,
                  $$values ('new2'), ('new4'), ('old4')$$,
                  'a fresh per-row job ahead of an old batch item is its lane''s head: priority 4 stays 4');

select * from awa.configure_queue('ad', '{"aging_seconds": 60}');
select awa_test.batch_row(array['ad.k'], array['{"n": "b4"}']::jsonb[], array['{"queue": "ad", "priority": 4}']::jsonb[]);
update awa.ready_batches set created_at = created_at - interval '10 minutes' where queue = 'ad';
select * from awa.insert_job('ad.k', '{"n": "new1"}', '{"queue": "ad", "priority": 1}');
select is((select args ->> 'n' from awa.claim_ready_runtime('ad', 1)), 'b4',
          'without item_run_ats the row''s created_at is its items'' run_at');

select * from finish();
rollback;
