-- One complete_jobs call writes one compact batch row (per ready slot and
-- queue); awa.terminal_jobs expands it to one completed row per job.
begin;
select plan(3);

select * from awa.insert_jobs(array['term.k', 'term.k', 'term.k'], array['{"i": 1}', '{"i": 2}', '{"i": 3}']::jsonb[],
                              array['{"queue": "tq"}', '{"queue": "tq"}', '{"queue": "tq"}']::jsonb[]);
create temp table c as select * from awa.claim_ready_runtime('tq', 3, null, now());
select * from awa.complete_jobs((select array_agg(id) from c), (select array_agg(run_lease) from c),
                                (select array_agg(claim_slot) from c), (select array_agg(receipt_id) from c),
                                now() + interval '5 seconds');

select is((select count(*)::int from awa.done_completions), 1, 'one compact batch row for the whole call');
select is((select cardinality(job_ids) from awa.done_completions), 3, 'the batch lists the three jobs');
select bag_eq(
  $$select id, state, attempt, run_lease, args, finalized_at from awa.terminal_jobs$$,
  $$select id, 'completed'::awa.job_state as state, 1 as attempt, run_lease, args,
         now() + interval '5 seconds' as finalized_at from c$$,
  'terminal_jobs expands it to one completed row per job, hydrated from the ready rows');

select * from finish();
rollback;
