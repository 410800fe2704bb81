-- awa.get_job reads each plane by an index on the id: its statement
-- (awa._list_jobs_sql with an id), run under awa.list_jobs' settings
-- (awa.get_job sets the same), sorts nothing and scans nothing sequentially
-- but the completion batches of the job's own slot (the other slots' pruned
-- when it runs), whichever plane holds the job: its ready row by job_id, the
-- archive by its chunks' (max_job_id, min_job_id) in [id, id + span).
begin;
select plan(4);

select awa_test.archive_fixture();
select awa_test.state_fixture();

select is((select proconfig from pg_proc where oid = 'awa.get_job(bigint)'::regprocedure),
          (select proconfig from pg_proc where oid = 'awa.list_jobs'::regproc),
          'get_job plans as list_jobs does (same settings)');
select is_empty(
  $$select f.name, u from (select name, id from fx union all select name, id from ax) as f
    cross join lateral awa_test.unwanted_plan_nodes(awa_test.listing_plan(awa._list_jobs_sql(f.id, null, null, null,
                                                                                             null, null, null, null, 1))) as u$$,
  'no sort and no sequential scan but of a slot''s completion batches, whichever plane holds the job');
select is((select count(distinct n ->> 'Relation Name')::int
           from jsonb_path_query(awa_test.listing_plan(awa._list_jobs_sql((select id from fx where name = 'qa_completed'),
                                                                          null, null, null, null, null, null, null, 1)),
                                 'strict $.** ? (@."Relation Name" like_regex "^done_completions_" && @."Actual Loops" > 0)')
                as n),
          1, 'a job completed in the ring: the completion batches of its own slot are read, no other slot''s');
select ok(jsonb_path_exists(awa_test.listing_plan(awa._list_jobs_sql((select id from ax where name = 'arch_failed'),
                                                                     null, null, null, null, null, null, null, 1)),
                            'strict $.**."Index Name" ? (@ like_regex "archived_chunks_[0-9]+_max_job_id_min_job_id")'),
          'an archived job: the archive is probed by its chunks'' (max_job_id, min_job_id)');

select * from finish();
rollback;
