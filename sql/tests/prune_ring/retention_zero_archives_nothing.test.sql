-- A retention of 0 keeps a state (or, by a queue's override, a queue's jobs
-- of that state) out of the archive: prune truncates them as before.
begin;
select plan(3);

select awa.configure_archive('{"failed_seconds": 0}');
select awa.configure_archive('{"completed_seconds": 0}', 'off');
select awa_test.completed_job('off');
select awa_test.completed_job('on');
create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "on"}', now());
select * from awa.fail_jobs(array[(select id from c)], array[(select run_lease from c)], array[(select claim_slot from c)],
                            array[(select receipt_id from c)], array['bad'], now());
select * from awa.rotate_ring('queue', now());

select is((select outcome from awa.prune_ring('queue')), 'pruned', 'the slot is pruned');
select results_eq($$select queue, state::text from awa_test.archived_jobs$$, $$values ('on'::text, 'completed'::text)$$,
                  'only the completed job of the queue without an override is archived');
select is((select count(*)::int from awa.terminal_jobs), 1, 'the others are gone with the slot');

select * from finish();
rollback;
