-- maintain_archive creates, ahead of need, the cohort partitions the next
-- copies need: for each retention in use, the UTC hour of now + retention,
-- one before and three after; a second pass creates nothing; a retention of 0
-- needs none. So a prune's copy lands in a cohort, never in DEFAULT.
begin;
select plan(4);

select awa.configure_archive('{"completed_seconds": 7200, "failed_seconds": 0, "cancelled_seconds": 0}');
select results_eq(
  $$select action, outcome, cohort_start from awa.maintain_archive(50, 16, '2030-01-01 10:30:00+00')$$,
  $$select 'create'::text, 'created'::text, t from generate_series(timestamptz '2030-01-01 11:00:00+00',
                                                                    timestamptz '2030-01-01 15:00:00+00', interval '1 hour') t$$,
  'five hourly cohorts around now + 2 h');
select is_empty($$select * from awa.maintain_archive(50, 16, '2030-01-01 10:30:00+00')$$, 'a second pass does nothing');
select is((select count(*)::int from pg_inherits where inhparent = 'awa.archived_chunks'::regclass), 6,
          'five cohorts and the DEFAULT partition');

select awa_test.completed_job('aq');
select * from awa.rotate_ring('queue', now());
select * from awa.maintain_archive();
select * from awa.prune_ring('queue');
select is((select count(*)::int from awa.archived_chunks_default), 0, 'a copy after a pass lands in its cohort');

select * from finish();
rollback;
