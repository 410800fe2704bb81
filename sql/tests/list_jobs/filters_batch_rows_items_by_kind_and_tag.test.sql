-- A kind or tag filter applies to each batch item: a row of mixed kinds
-- lists only its items of that kind, a tag only the items holding it, and a
-- row whose one kind is another is passed over whole; with a queue, the
-- filters combine.
begin;
select plan(4);

create temp table b1 as
select awa_test.batch_row(array['fk.a', 'fk.b', 'fk.a', 'fk.b'], null,
                          array['{"queue": "fk", "tags": ["x"]}', '{"queue": "fk", "tags": ["y", "x"]}',
                                '{"queue": "fk"}', '{"queue": "fk", "tags": ["y"]}']::jsonb[]) as ids;
create temp table b2 as
select awa_test.batch_row(array['fk.b', 'fk.b'], null, array_fill('{"queue": "fk2"}'::jsonb, array[2])) as ids;
select awa.insert_job('fk.b', '{}', '{"queue": "fk", "tags": ["x"]}');

select results_eq($$select id from awa.list_jobs(p_kind => 'fk.a')$$,
                  $$select unnest(array[ids[3], ids[1]]) from b1$$,
                  'kind fk.a: the mixed row''s items of that kind; the row of fk.b only is passed over');
select results_eq($$select id from awa.list_jobs(p_kind => 'fk.b')$$,
                  $$select id from (select max(job_id) as id from awa.ready_entries where queue = 'fk'
                                    union all select unnest(array[ids[2], ids[1]]) from b2
                                    union all select unnest(array[ids[4], ids[2]]) from b1) as x order by id desc$$,
                  'kind fk.b: the ready row, every item of the single-kind row and the mixed row''s');
select results_eq($$select id from awa.list_jobs(p_tag => 'x', p_queue => 'fk')$$,
                  $$select id from (select max(job_id) as id from awa.ready_entries where queue = 'fk'
                                    union all select unnest(array[ids[2], ids[1]]) from b1) as x order by id desc$$,
                  'tag x: the items holding it among others, and the ready row');
select results_eq($$select id from awa.list_jobs(p_tag => 'y', p_kind => 'fk.b', p_queue => 'fk')$$,
                  $$select unnest(array[ids[4], ids[2]]) from b1$$, 'tag, kind and queue at once');

select * from finish();
rollback;
