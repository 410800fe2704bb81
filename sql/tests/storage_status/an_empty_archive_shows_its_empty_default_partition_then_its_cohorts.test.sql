-- The archive's rows in storage_status: the DEFAULT partition (slot -1),
-- empty; then each cohort, oldest first, with its retention end as sealed_at:
-- empty until a job lands in it, retained while its retention runs.
begin;
select plan(4);

select results_eq($$select slot, role, rows, status from awa.storage_status() where ring = 'archive'$$,
                  $$values (-1, 'default'::text, 0::bigint, 'empty'::text)$$, 'a fresh install: the empty DEFAULT');
select * from awa.maintain_archive();
select awa_test.completed_job('aq');
select * from awa.rotate_ring('queue', now());
select * from awa.prune_ring('queue');
select is((select count(*)::int from awa.storage_status() where ring = 'archive' and role = 'cohort'),
          (select count(*)::int from awa.archive_cohorts), 'one row per cohort');
select results_eq(
  $$select rows, status, sealed_at > now() + interval '23 hours' from awa.storage_status()
    where ring = 'archive' and role = 'cohort' and rows > 0$$,
  $$values (1::bigint, 'retained'::text, true)$$, 'the cohort holding the job is retained until its retention ends');
select is((select count(*)::int from awa.storage_status() where ring = 'archive' and role = 'cohort' and rows = 0
           and status <> 'empty'), 0, 'the others are empty');

select * from finish();
rollback;
