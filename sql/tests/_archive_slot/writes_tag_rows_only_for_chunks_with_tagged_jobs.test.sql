-- Tags are kept only where a job has one: a chunk of untagged jobs has tags
-- NULL and no tag row; a chunk with tagged jobs keeps each job's tags (an
-- untagged job's as '{}') and one tag row per distinct tag, holding the ids
-- of its jobs that have it, in order, with their bounds.
begin;
select plan(4);

select * from awa.insert_jobs(array['tag.k', 'tag.k', 'tag.k', 'plain.k', 'plain.k'], null,
                              array['{"queue": "tg", "tags": ["red", "blue", "red"]}', '{"queue": "tg"}',
                                    '{"queue": "tg", "tags": ["red"]}', '{"queue": "tg"}',
                                    '{"queue": "tg"}']::jsonb[]);
create temp table j as select id, kind, tags from awa.jobs where queue = 'tg';
select is(awa_test.complete_and_archive('tg'), 5, 'five jobs complete and their slot is pruned (fixture)');

select is((select tags from awa.archived_chunks where queue = 'tg' and kind = 'plain.k'), null,
          'the chunk of untagged jobs keeps no tags');
select results_eq($$select job_id, tags from awa_test.archived_jobs where queue = 'tg' order by 1$$,
                  $$select id, tags from j order by 1$$, 'each job shows its own tags, untagged ones none');
select results_eq(
  $$select t.tag, t.job_ids, t.min_job_id, t.max_job_id, t.chunk_id = c.chunk_id, t.expires_at = c.expires_at
    from awa.archived_tags t join awa.archived_chunks c on c.queue = 'tg' and c.kind = 'tag.k'
    where t.chunk_id in (select chunk_id from awa.archived_chunks where queue = 'tg') order by t.tag$$,
  $$select * from (values
      ('blue'::text, array[(select min(id) from j)], (select min(id) from j), (select min(id) from j), true, true),
      ('red', array[(select min(id) from j), (select min(id) from j where kind = 'tag.k' and id > (select min(id) + 1 from j))],
       (select min(id) from j), (select max(id) from j where kind = 'tag.k'), true, true)) as v order by 1$$,
  'one row per distinct tag of the tagged chunk, with the ids of its jobs that have it');

select * from finish();
rollback;
