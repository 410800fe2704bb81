-- Every retention configure_archive sets (install-wide or for a queue) is
-- kept in awa.archive_retention_log, also after it is replaced, so that a
-- listing by finalization time still finds the jobs archived with it; 0
-- (not archived) is not logged.
begin;
select plan(2);

select awa.configure_archive('{"completed_seconds": 3600, "failed_seconds": 0}');
select awa.configure_archive('{"cancelled_seconds": 120}', 'aq');
select awa.configure_archive('{"completed_seconds": 7200}');
select results_eq($$select retention from awa.archive_retention_log order by 1$$,
                  $$values (interval '2 minutes'), (interval '1 hour'), (interval '2 hours'), (interval '24 hours'),
                           (interval '7 days')$$,
                  'the defaults, the replaced one hour, the new two hours and the queue''s two minutes');
select is((select count(*)::int from awa.archive_retention_log where retention = interval '0'), 0, '0 is not logged');

select * from finish();
rollback;
