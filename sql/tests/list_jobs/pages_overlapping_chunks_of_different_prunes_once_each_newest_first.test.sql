-- Chunks whose id ranges overlap (two kinds, two states in one prune; a job
-- retried out of its chunk and archived again by a later prune, inside the
-- range of its first chunk) are paged as one order: every job exactly once,
-- newest first, whatever the page size.
begin;
select plan(6);

select * from awa.insert_jobs(array_fill('odd.k'::text, array[6]) || array_fill('even.k'::text, array[6]), null,
                              array_fill('{"queue": "po"}'::jsonb, array[12]));
-- Then six alternating, so that the two kinds' id ranges overlap.
select * from awa.insert_jobs(array['odd.k', 'even.k', 'odd.k', 'even.k', 'odd.k', 'even.k'], null,
                              array_fill('{"queue": "po"}'::jsonb, array[6]));
-- One job of each kind is cancelled (its own state, its own chunk).
create temp table cx as
  select min(id) filter (where kind = 'odd.k') as a, min(id) filter (where kind = 'even.k') as b from awa.jobs
  where queue = 'po';
select awa.cancel_job((select a from cx));
select awa.cancel_job((select b from cx));
select is(awa_test.complete_and_archive('po'), 16, 'sixteen jobs complete; all eighteen are archived by one prune (fixture)');
select cmp_ok((select count(*)::int from awa.archived_chunks a, awa.archived_chunks b
               where a.queue = 'po' and b.queue = 'po' and a.chunk_id < b.chunk_id
                 and a.min_job_id <= b.max_job_id and b.min_job_id <= a.max_job_id), '>', 0,
              'chunks of the queue overlap in ids (fixture)');
-- A later prune archives the cancelled odd job again, inside its old range.
select awa.retry_job((select a from cx));
select is(awa_test.complete_and_archive('po'), 1, 'the retried job completes and a later prune archives it (fixture)');

create function pg_temp.pages(p_limit int) returns bigint[] language plpgsql as $$
declare
  v_all bigint[] := '{}';
  v_page bigint[];
begin
  loop
    v_page := array(select id from awa.list_jobs(p_queue => 'po', p_after => v_all[cardinality(v_all)],
                                                 p_limit => p_limit));
    v_all := v_all || v_page;
    exit when cardinality(v_page) < p_limit;
  end loop;
  return v_all;
end $$;
select is(pg_temp.pages(2), (select array_agg(id order by id desc) from awa.jobs where queue = 'po'),
          'pages of 2: every job once, newest first');
select is(pg_temp.pages(5), (select array_agg(id order by id desc) from awa.jobs where queue = 'po'),
          'pages of 5: the same');

select is(array(select id from awa.list_jobs(p_states => '{completed,completed}', p_limit => 2)),
          (select array_agg(id order by id desc) from (select id from awa.jobs where state = 'completed'
                                                      order by id desc limit 2) as j),
          'a state named twice: each job once, a full page');

select * from finish();
rollback;
