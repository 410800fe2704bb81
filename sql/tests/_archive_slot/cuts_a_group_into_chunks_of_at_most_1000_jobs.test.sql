-- A prune's copy puts the jobs of one state, queue and kind in chunks of at
-- most 1,000 jobs, in id order: 1,001 completed jobs whose ids share one
-- aligned block make two chunks, 1,000 and 1, with disjoint id ranges, and
-- every job is archived once.
begin;
select plan(5);

-- The next block starts at a multiple of the span, plus 1 (blocks start at 1
-- mod 1,024, and the span is a multiple of 1,024): the call's one block.
select setval('awa.job_id_seq', 20 * awa._archive_span() + 1, false);
select count(*) from awa.insert_jobs(array_fill('chunk.k'::text, array[1001]), null,
                                     array_fill('{"queue": "ch"}'::jsonb, array[1001]));
select is(awa_test.complete_and_archive('ch'), 1001, 'the 1,001 jobs complete and their slot is pruned (fixture)');

select results_eq($$select n from awa.archived_chunks where queue = 'ch' order by min_job_id$$,
                  $$values (1000), (1)$$, 'two chunks: 1,000 jobs, then 1');
select ok((select bool_and(job_ids = (select array_agg(x order by x) from unnest(job_ids) x)
                           and min_job_id = job_ids[1] and max_job_id = job_ids[n] and cardinality(job_ids) = n)
           from awa.archived_chunks where queue = 'ch'),
          'each chunk holds its ids in order, its bounds its first and last');
select is((select count(*)::int from awa.archived_chunks a, awa.archived_chunks b
           where a.queue = 'ch' and b.queue = 'ch' and a.chunk_id < b.chunk_id
             and a.min_job_id <= b.max_job_id and b.min_job_id <= a.max_job_id), 0,
          'their id ranges are disjoint');
select results_eq($$select job_id from awa_test.archived_jobs where queue = 'ch' order by 1$$,
                  $$select generate_series(20 * awa._archive_span() + 1, 20 * awa._archive_span() + 1001)$$,
                  'every job is archived once');

select * from finish();
rollback;
