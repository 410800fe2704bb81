-- With retention on, queue-ring prune copies the slot's terminal jobs
-- (completed ones hydrated from their ready rows, failed and cancelled
-- snapshots) to awa_test.archived_jobs before it truncates the slot, each with
-- expires_at = finalized_at + its state's retention (a queue's override
-- first); awa.terminal_jobs, awa.jobs and awa.job show each job once, as
-- before the prune.
begin;
select plan(6);

select awa.configure_archive('{"cancelled_seconds": 3600}', 'aq');
select * from awa.insert_jobs(array['arch.k', 'arch.k', 'arch.k'], array['{"n": 1}', '{"n": 2}', '{"n": 3}']::jsonb[],
                              array['{"queue": "aq", "tags": ["t"]}', '{"queue": "aq"}', '{"queue": "aq"}']::jsonb[]);
create temp table c as select * from awa.claim_ready_runtime('aq', 3, null, now());
select * from awa.complete_jobs(array[(select min(id) from c)], array[1::bigint], array[(select claim_slot from c limit 1)],
                                array[(select receipt_id from c order by id limit 1)], now());
select * from awa.fail_jobs(array[(select id from c order by id offset 1 limit 1)], array[1::bigint],
                            array[(select claim_slot from c limit 1)],
                            array[(select receipt_id from c order by id offset 1 limit 1)], array['bad'], now());
select * from awa.cancel_jobs(array[(select max(id) from c)], array[1::bigint], array[(select claim_slot from c limit 1)],
                              array[(select receipt_id from c order by id desc limit 1)], null, now());
create temp table before as select * from awa.terminal_jobs where queue = 'aq';

select * from awa.rotate_ring('queue', now());
select is((select outcome from awa.prune_ring('queue')), 'pruned', 'the slot is pruned');
select is((select count(*)::int from awa.done_completions_0) + (select count(*)::int from awa.done_entries_0), 0,
          'the ring no longer holds them');
select results_eq(
  $$select job_id, state::text, expires_at - finalized_at from awa_test.archived_jobs where queue = 'aq' order by job_id$$,
  $$select id, state::text, case state when 'completed' then interval '24 hours' when 'failed' then interval '7 days'
                                 else interval '1 hour' end from before order by id$$,
  'each is archived once with its retention (the queue''s cancelled override, the install''s otherwise)');
select results_eq($$select * from awa.terminal_jobs where queue = 'aq' order by id$$,
                  $$select * from before order by id$$, 'awa.terminal_jobs shows them as before the prune, once each');
select is((select count(*)::int from awa.jobs where queue = 'aq'), 3, 'awa.jobs shows each once');
select results_eq($$select id, state::text, args, tags from awa.job((select min(id) from c))$$,
                  $$select min(id), 'completed'::text, '{"n": 1}'::jsonb, array['t'] from c$$,
                  'awa.job finds an archived job by id, body included');

select * from finish();
rollback;
