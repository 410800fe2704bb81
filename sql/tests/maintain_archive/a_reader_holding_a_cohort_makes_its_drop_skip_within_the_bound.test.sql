-- A reader holding a lock on an expired cohort partition (another session in
-- an open transaction) never makes maintain_archive wait longer than
-- lock_timeout_ms: the drop ends skipped_blocked, the cohort is kept,
-- storage_status shows it locked by that session, and the next pass drops it. The cohort must be visible to the reader, so a third session creates it
-- and commits; this file removes it again after its rollback.
begin;
select plan(8);

select * from awa_test.connect_other('-c lock_timeout=5s -c statement_timeout=10s');
select lives_ok($$select dblink_exec('awa_other', 'do $x$ begin perform awa._create_archive_cohort(''2020-01-01 00:00:00+00''); end $x$')$$,
                'a cohort of 2020-01-01 00:00 is created and committed (fixture)');
select lives_ok($$select dblink_exec('awa_other', 'begin; lock table awa.archived_chunks_2020010100 in access share mode')$$,
                'the second session holds a read lock on it (fixture)');

create temp table t0 as select clock_timestamp() as t;
create temp table o as select * from awa.maintain_archive(20, 1);
select results_eq($$select outcome, cohort_start from o where action = 'drop'$$,
                  $$values ('skipped_blocked'::text, timestamptz '2020-01-01 00:00:00+00')$$,
                  'the drop is skipped, blocked');
select cmp_ok((select clock_timestamp() - t from t0), '<', interval '2 seconds', 'within its bound, not after a wait');
select isnt(to_regclass('awa.archived_chunks_2020010100'), null, 'the cohort is kept');
select results_eq(
  $$select status, cause, detail like 'pid % holds AccessShareLock on awa.archived_chunks_2020010100%' from awa.storage_status()
    where ring = 'archive' and slot = 0$$,
  $$values ('locked'::text, 'lock'::text, true)$$, 'storage_status shows the oldest cohort locked by the reader');

select dblink_exec('awa_other', 'rollback');
select dblink_disconnect('awa_other');
select is((select outcome from awa.maintain_archive(20, 1) where action = 'drop'),
          'dropped', 'once the reader is gone it is dropped');

select * from finish();
rollback;
drop table if exists awa.archived_chunks_2020010100;
drop table if exists awa.archived_tags_2020010100;
delete from awa.archive_cohorts where cohort_start = '2020-01-01 00:00:00+00';
