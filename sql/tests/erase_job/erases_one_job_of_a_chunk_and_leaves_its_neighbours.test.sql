-- Erasing an archived job rewrites its own elements of its chunk: its args
-- become {}, its metadata {"erased_at": ...} and, when asked, its errors
-- go; the other jobs of the chunk keep theirs, and the chunk keeps its jobs.
begin;
select plan(4);

select * from awa.insert_jobs(array['er.k', 'er.k', 'er.k'],
                              array['{"pii": "one"}', '{"pii": "two"}', '{"pii": "three"}']::jsonb[],
                              array['{"queue": "ec", "metadata": {"m": 1}}', '{"queue": "ec", "metadata": {"m": 2}}',
                                    '{"queue": "ec", "metadata": {"m": 3}}']::jsonb[]);
select is(awa_test.complete_and_archive('ec'), 3, 'three jobs complete and are archived in one chunk (fixture)');
create temp table j as select job_id as id, row_number() over (order by job_id) as k from awa_test.archived_jobs
  where queue = 'ec';

select results_eq($$select e.plane, e.rows from awa.erase_job((select id from j where k = 2), true,
                                                              '2026-01-02 03:04:05+00') as e$$,
                  $$values ('archive'::text, 1::bigint)$$, 'the job is erased in the archive');
select results_eq($$select a.args, a.metadata from awa_test.archived_jobs a join j on j.id = a.job_id order by j.k$$,
                  $$values ('{"pii": "one"}'::jsonb, '{"m": 1}'::jsonb),
                           ('{}', '{"erased_at": "2026-01-02T03:04:05+00:00"}'),
                           ('{"pii": "three"}', '{"m": 3}')$$,
                  'only its elements are rewritten; its neighbours keep their args and metadata');
select results_eq($$select n, cardinality(job_ids) from awa.archived_chunks where queue = 'ec'$$,
                  $$values (3, 3)$$, 'the chunk keeps its three jobs');

select * from finish();
rollback;
