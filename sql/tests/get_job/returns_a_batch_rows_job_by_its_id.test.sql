-- awa.get_job finds a job of a batch row by its id (the row whose id block
-- holds it), as the listing shows it, among ready rows of the same lane;
-- an id of the row's block beyond its jobs is no job.
begin;
select plan(3);

select awa.insert_job('gb.k', '{"n": 0}', '{"queue": "gb"}');
create temp table b as
select awa_test.batch_row(array['gb.k', 'gb.j', 'gb.k'], array['{"n": 1}', '{"n": 2}', '{"n": 3}']::jsonb[],
                          array['{"queue": "gb"}', '{"queue": "gb", "tags": ["t"]}', '{"queue": "gb"}']::jsonb[])
       as ids;
select awa.insert_job('gb.k', '{"n": 4}', '{"queue": "gb"}');

select results_eq(
  $$select g.* from awa.list_jobs(p_queue => 'gb') as l cross join lateral awa.get_job(l.id) as g order by g.id desc$$,
  $$select * from awa.list_jobs(p_queue => 'gb')$$,
  'each job of the lane, ready row or batch item, as the listing shows it');
select results_eq($$select id, kind, args, tags from awa.get_job((select ids[2] from b))$$,
                  $$select ids[2], 'gb.j'::text, '{"n": 2}'::jsonb, '{t}'::text[] from b$$,
                  'a batch row''s middle item: its own kind, args and tags');
select is_empty($$select 1 from b cross join lateral unnest(array[ids[3] + 1, ids[1] + 500, ids[1] + 1023]) as i
                  cross join lateral awa.get_job(i) as g$$,
                'ids of the row''s block beyond its jobs: no job');

select * from finish();
rollback;
