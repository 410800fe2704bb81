-- export_function names a function fn(timestamptz, timestamptz, regclass):
-- registered install-wide as that procedure, and removed by null.
begin;
select plan(2);

create function public.archive_sink(p_start timestamptz, p_end timestamptz, p_rel regclass) returns void
language sql as $$ select $$;

select awa.configure_archive('{"export_function": "public.archive_sink"}');
select is((select export_function::text from awa.archive_export),
          'archive_sink(timestamp with time zone,timestamp with time zone,regclass)', 'the hook is registered');
select awa.configure_archive('{"export_function": null}');
select is((select count(*)::int from awa.archive_export), 0, 'null removes it');

select * from finish();
rollback;
