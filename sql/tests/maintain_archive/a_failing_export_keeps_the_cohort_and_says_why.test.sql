-- The export hook receives each cohort before it is dropped; when it raises,
-- the cohort is kept (skipped_export), awa.storage_status says why, and the
-- next pass with a working export drops it after exporting it.
begin;
select plan(6);

create table public.exported (cohort_start timestamptz, rel text, jobs bigint);
create function public.failing_export(p_start timestamptz, p_end timestamptz, p_rel regclass) returns void
language plpgsql as $$ begin raise exception 'bucket unreachable'; end $$;
create function public.working_export(p_start timestamptz, p_end timestamptz, p_rel regclass) returns void
language plpgsql as $$
begin
  execute format('insert into public.exported select %L, %L, count(*) from %s', p_start, p_rel, p_rel);
end $$;

select * from awa.maintain_archive();
select awa_test.completed_job('aq');
select * from awa.rotate_ring('queue', now());
select * from awa.prune_ring('queue');
create temp table cohort as select c.* from awa.archive_cohorts c
  join awa_test.archived_jobs a on a.expires_at >= c.cohort_start and a.expires_at < c.cohort_end;

select awa.configure_archive('{"export_function": "public.failing_export"}');
select results_eq(
  $$select outcome, detail from awa.maintain_archive(50, 16, (select cohort_end from cohort))
    where cohort_start = (select cohort_start from cohort)$$,
  $$values ('skipped_export'::text, 'export by public.failing_export failed: bucket unreachable (P0001)'::text)$$,
  'a failing export keeps the cohort');
select isnt(to_regclass('awa.' || (select relname from cohort)), null, 'its partition is still there');
select results_eq(
  $$select status, cause from awa.storage_status() where ring = 'archive' and role = 'cohort' and rows > 0$$,
  $$values ('blocked'::text, 'export'::text)$$,
  'storage_status shows it blocked by the export');

select awa.configure_archive('{"export_function": "public.working_export"}');
select is((select outcome from awa.maintain_archive(50, 16, (select cohort_end from cohort))
           where cohort_start = (select cohort_start from cohort)),
          'dropped', 'with a working export the cohort is dropped');
select results_eq($$select cohort_start, jobs from public.exported where cohort_start = (select cohort_start from cohort)$$, $$select cohort_start, 1::bigint from cohort$$,
                  'after the hook received it');
select is(to_regclass('awa.' || (select relname from cohort)), null, 'its partition is gone');

select * from finish();
rollback;
