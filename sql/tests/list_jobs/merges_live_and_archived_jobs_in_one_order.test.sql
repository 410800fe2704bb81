-- Live and archived jobs whose ids interleave come out in one order, each
-- from its own plane: the archived ones with their expiry, the live ones as
-- the queue ring holds them; the archive's tags table and its jobs moved
-- from the DEFAULT partition together.
begin;
select plan(5);

select awa_test.archive_fixture();

select results_eq($$select id, state from awa.list_jobs()$$, $$select id, want from ax order by id desc$$,
                  'six jobs, archived and live alternating, newest first');
select is((select count(*)::int from awa_test.archived_jobs where queue = 'arch'), 3, 'three of them archived');
select is_empty($$select * from awa.archived_chunks_default$$, 'none left in the DEFAULT partition');
select is_empty($$select * from awa.archived_tags_default$$, 'nor of their tags');
select results_eq($$select tag, job_id from awa_test.archived_job_tags order by tag, job_id$$,
                  $$values ('a'::text, (select id from ax where name = 'arch_completed')),
                           ('a', (select id from ax where name = 'arch_failed')),
                           ('b', (select id from ax where name = 'arch_completed'))$$,
                  'a row per distinct tag of a tagged archived job, moved to its cohort with it');

select * from finish();
rollback;
