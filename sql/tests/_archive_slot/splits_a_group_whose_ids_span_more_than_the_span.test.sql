-- A chunk's ids stay below awa._archive_span() apart: jobs of one group whose
-- ids are further apart (other queues took the ids between) go to separate
-- chunks, cut at a multiple of the span, so the chunk that holds a job X has
-- max_job_id in [X, X + span): the bound that lookups by id and pages use.
begin;
select plan(4);

-- Two jobs from a block at a multiple of the span (plus 1: blocks start at
-- 1 mod 1,024), then one from a block more than a span later (a call of two
-- closes the transaction's single-insert block, so the insert draws it).
select setval('awa.job_id_seq', 30 * awa._archive_span() + 1, false);
select count(*) from awa.insert_jobs(array['span.k', 'span.k'], null,
                                     array['{"queue": "sp"}', '{"queue": "sp"}']::jsonb[]);
select setval('awa.job_id_seq', 31 * awa._archive_span() + 1025, false);
select awa.insert_job('span.k', '{}', '{"queue": "sp"}');
select is(awa_test.complete_and_archive('sp'), 3, 'three jobs complete and their slot is pruned (fixture)');

select results_eq($$select min_job_id - 30 * awa._archive_span(), max_job_id - 30 * awa._archive_span(), n
                    from awa.archived_chunks where queue = 'sp' order by min_job_id$$,
                  $$values (1::bigint, 2::bigint, 2), (awa._archive_span() + 1025, awa._archive_span() + 1025, 1)$$,
                  'two chunks: the ids more than a span apart are split');
select ok((select bool_and(max_job_id - min_job_id < awa._archive_span()) from awa.archived_chunks where queue = 'sp'),
          'each chunk spans less than the span');
select ok((select bool_and(exists (select 1 from awa.archived_chunks c
                                   where c.queue = 'sp' and c.job_ids @> array[a.job_id]
                                     and c.max_job_id >= a.job_id and c.max_job_id < a.job_id + awa._archive_span()))
           from awa_test.archived_jobs a where a.queue = 'sp'),
          'the chunk of each job has max_job_id in [id, id + span)');

select * from finish();
rollback;
