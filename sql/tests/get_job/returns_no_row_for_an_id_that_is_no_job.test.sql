-- awa.get_job of an id no job has, or had (an archived job whose cohort was
-- dropped once its retention passed), returns no row, not an error.
begin;
select plan(4);

select awa_test.archive_fixture();

select is_empty($$select * from awa.get_job(0)$$, 'id 0: no row');
select is_empty($$select * from awa.get_job((select max(id) + 1000 from ax))$$, 'an id not issued yet: no row');
select isnt_empty($$select * from awa.maintain_archive(50, 1000, now() + interval '8 days') where outcome = 'dropped'$$,
                  'eight days on, the cohorts are dropped (fixture)');
select is_empty($$select * from ax cross join lateral awa.get_job(ax.id) as j where ax.queue = 'arch'$$,
                'an archived job whose cohort was dropped: no row');

select * from finish();
rollback;
