-- The install creates the archive's DEFAULT partitions (jobs and their tags)
-- and the default retentions (completed 24 h, failed and cancelled 7 days),
-- logged in awa.archive_retention_log; a second call keeps an operator's
-- retention, and the log keeps every retention set.
begin;
select plan(6);

select is((select pg_get_expr(c.relpartbound, c.oid) from pg_class c where c.oid = 'awa.archived_chunks_default'::regclass),
          'DEFAULT', 'awa.archived_chunks_default is the DEFAULT partition');
select is((select pg_get_expr(c.relpartbound, c.oid) from pg_class c where c.oid = 'awa.archived_tags_default'::regclass),
          'DEFAULT', 'awa.archived_tags_default is the DEFAULT partition of the tags');
select results_eq($$select state::text, retention from awa.archive_retention where queue = '*' order by state$$,
                  $$values ('cancelled'::text, interval '7 days'), ('completed', interval '24 hours'),
                           ('failed', interval '7 days')$$, 'the default retentions');
select results_eq($$select retention from awa.archive_retention_log order by 1$$,
                  $$values (interval '24 hours'), (interval '7 days')$$, 'the retention log holds them');
select awa.configure_archive('{"completed_seconds": 60}');
select * from awa.install_queue_storage_substrate();
select is((select retention from awa.archive_retention where queue = '*' and state = 'completed'), interval '1 minute',
          'a second install keeps the operator''s retention');
select results_eq($$select retention from awa.archive_retention_log order by 1$$,
                  $$values (interval '1 minute'), (interval '24 hours'), (interval '7 days')$$,
                  'the log keeps the replaced retention and the new one');

select * from finish();
rollback;
