-- The statement awa.list_jobs runs (awa._list_jobs_sql), run under the
-- function's own settings, sorts nothing and scans no table sequentially but
-- the queue ring's completion batches (read once, to hash the attempts they
-- hold), for each filter and a cursor: every plane is read through an index
-- in job order and merged (internal/listing proves it on a million archived
-- jobs); a probe of another plane per row may be a bitmap scan of an index.
-- The archive's branch sorts at most a page (what awa._archive_page
-- returns); the walk of the chunks inside it (awa._archive_walk_sql) sorts
-- nothing and scans nothing sequentially: an index walk in max_job_id order,
-- for a tag through the tags table. A time range reads, for each retention,
-- only the cohorts it implies.
begin;
select plan(25);

select awa_test.archive_fixture();
select awa_test.state_fixture();
select awa.maintain_archive();

create temp table calls (filter text, sql text);
insert into calls values
  ('no filter', awa._list_jobs_sql(null, null, null, null, null, null, null, null, 50)),
  ('states', awa._list_jobs_sql(null, '{running,failed}', null, null, null, null, null, null, 50)),
  ('queue', awa._list_jobs_sql(null, null, 'qa', null, null, null, null, null, 50)),
  ('kind', awa._list_jobs_sql(null, null, null, 'mix.k', null, null, null, null, 50)),
  ('tag', awa._list_jobs_sql(null, null, null, null, 'a', null, null, null, 50)),
  ('time range', awa._list_jobs_sql(null, null, null, null, null, now() - interval '150 minutes',
                                    now() - interval '90 minutes', null, 50)),
  ('cursor', awa._list_jobs_sql(null, null, null, null, null, null, null, (select max(id) from ax), 50)),
  ('id (get_job)', awa._list_jobs_sql((select min(id) from ax), null, null, null, null, null, null, null, 1));
create temp table plans as select filter, awa_test.listing_plan(sql) as plan from calls;

select is_empty(format($$select * from awa_test.unwanted_plan_nodes(%L)$$, plan),
                format('%s: no sort, no sequential scan but of the completion batches', filter))
from plans order by filter;
select ok(jsonb_path_exists(plan, 'strict $.**."Node Type" ? (@ == "Merge Append")'),
          format('%s: the planes are merged in job order', filter))
from plans where filter not in ('id (get_job)') order by filter;
create temp table walks as
  select w.filter, awa_test.listing_plan(awa._archive_walk_sql(coalesce(w.states, '{completed,failed,cancelled}'),
                                                               w.queue, w.kind, w.tag, w.f, w.t, w.after)) as plan
  from (values ('no filter', null, null, null, null::timestamptz, null::timestamptz, null::bigint, null::awa.job_state[]),
               ('states', null, null, null, null, null, null, '{failed,cancelled}'),
               ('queue', 'qa', null, null, null, null, null, null),
               ('kind', null, 'mix.k', null, null, null, null, null),
               ('tag', null, null, 'a', null, null, null, null),
               ('time range', null, null, null, now() - interval '150 minutes', now() - interval '90 minutes', null, null),
               ('cursor', null, null, null, null, null, (select max(id) from ax), null)) as w (filter, queue, kind, tag, f, t,
                                                                                 after, states);
select is_empty(format($$select * from awa_test.unwanted_plan_nodes(%L)$$, plan),
                format('%s: the walk of the chunks sorts nothing and scans nothing sequentially', filter))
from walks order by filter;
create temp table cohorts_read as
  select p.filter, count(distinct r #>> '{}') as n
  from walks p cross join lateral jsonb_path_query(p.plan, 'strict $.**."Relation Name"') as r
  where r #>> '{}' like 'archived\_chunks\_20%' group by p.filter;
select cmp_ok((select n from cohorts_read where filter = 'time range'), '<',
              (select n from cohorts_read where filter = 'no filter'),
              'time range: fewer cohorts read than without one');
select ok(jsonb_path_exists((select plan from walks where filter = 'time range'),
                            'strict $.**."Relation Name" ? (@ == $c)',
                            jsonb_build_object('c', 'archived_chunks_' || to_char((select finalized_at + interval '7 days'
                                                                                   from ax where name = 'arch_failed')
                                                                                  at time zone 'UTC', 'YYYYMMDDHH24'))),
          'time range: among them the cohort of the failure finished two hours ago (7 days'' retention)');
select ok(jsonb_path_exists((select plan from walks where filter = 'tag'),
                            'strict $.**."Index Name" ? (@ like_regex "archived_tags_.*tag")'),
          'tag: the archive is read through the tags table');

select * from finish();
rollback;
