-- Keyset paging: the next page starts after the last id of the previous one
-- (p_after). Pages of 4 cover the listing without a duplicate or a gap, and
-- jobs inserted between two pages (higher ids) never shift a later page:
-- page 2 read after the inserts is the same as read before them, and the
-- pages together are the first rows of the listing read before the inserts.
begin;
select plan(5);

select awa_test.archive_fixture();
select awa_test.state_fixture();

create temp table reference as select id, row_number() over (order by id desc) as n from awa.list_jobs(p_limit => 1000);
create temp table page1 as select id from awa.list_jobs(p_limit => 4);
create temp table page2_before as select id from awa.list_jobs(p_after => (select min(id) from page1), p_limit => 4);
select awa.insert_job('late.k', '{}', '{"queue": "qa"}') from generate_series(1, 5);
create temp table page2 as select id from awa.list_jobs(p_after => (select min(id) from page1), p_limit => 4);
create temp table page3 as select id from awa.list_jobs(p_after => (select min(id) from page2), p_limit => 4);

select results_eq($$select id from page2 order by id desc$$, $$select id from page2_before order by id desc$$,
                  'page 2 is the same before and after the inserts');
select results_eq($$select id from page1 union all select id from page2 union all select id from page3 order by id desc$$,
                  $$select id from reference where n <= 12 order by n$$,
                  'three pages are the first twelve jobs of the listing, in order, each once');
select is((select count(*)::int from awa.list_jobs(p_limit => 4)
           where id in (select id from awa.jobs where kind = 'late.k')), 4,
          'a fresh first page shows the new jobs');
select results_eq($$select id from awa.list_jobs(p_after => (select min(id) from reference) + 1, p_limit => 4)$$,
                  $$select min(id) from reference$$, 'the last page holds what is left');
select is_empty($$select * from awa.list_jobs(p_after => (select min(id) from reference))$$,
                'after the oldest job: an empty page');

select * from finish();
rollback;
