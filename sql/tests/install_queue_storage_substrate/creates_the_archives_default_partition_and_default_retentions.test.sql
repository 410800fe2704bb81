-- The install creates the archive's DEFAULT partition and the default
-- retentions (completed 24 h, failed and cancelled 7 days); a second call
-- keeps an operator's retention.
begin;
select plan(3);

select is((select pg_get_expr(c.relpartbound, c.oid) from pg_class c where c.oid = 'awa.archived_jobs_default'::regclass),
          'DEFAULT', 'awa.archived_jobs_default is the DEFAULT partition');
select results_eq($$select state::text, retention from awa.archive_retention where queue = '*' order by state$$,
                  $$values ('cancelled'::text, interval '7 days'), ('completed', interval '24 hours'),
                           ('failed', interval '7 days')$$, 'the default retentions');
select awa.configure_archive('{"completed_seconds": 60}');
select * from awa.install_queue_storage_substrate();
select is((select retention from awa.archive_retention where queue = '*' and state = 'completed'), interval '1 minute',
          'a second install keeps the operator''s retention');

select * from finish();
rollback;
