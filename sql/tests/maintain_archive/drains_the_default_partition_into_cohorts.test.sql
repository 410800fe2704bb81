-- Rows that reached the DEFAULT partition (a copy found no cohort for them)
-- are moved to their cohorts, created then; expired ones are dropped; the
-- DEFAULT partition is empty again and storage_status shows it blocked while
-- it is not.
begin;
select plan(5);

select awa_test.completed_job('aq');
select * from awa.rotate_ring('queue', now());
select * from awa.prune_ring('queue');
insert into awa.archived_jobs_default (expires_at, job_id, state, run_lease, attempt, max_attempts, priority, queue, kind,
  args, tags, metadata, created_at, run_at, finalized_at)
select now() - interval '1 hour', -1, 'failed', 1, 1, 1, 2, 'aq', 'old', '{}', '{}', '{}', now(), now(), now();
select results_eq($$select status, cause from awa.storage_status() where ring = 'archive' and role = 'default'$$,
                  $$values ('blocked'::text, 'default'::text)$$, 'storage_status shows the DEFAULT partition blocked');

select results_eq($$select action, outcome, rows from awa.maintain_archive() where action = 'drain'$$,
                  $$values ('drain'::text, 'drained'::text, 2::bigint)$$, 'the pass drains both rows');
select is((select count(*)::int from awa.archived_jobs_default), 0, 'DEFAULT is empty again');
select results_eq($$select job_id from awa.archived_jobs$$, $$select id from awa.terminal_jobs where queue = 'aq'$$,
                  'the live row moved to its cohort, the expired one went');
select is((select status from awa.storage_status() where ring = 'archive' and role = 'default'), 'empty',
          'storage_status shows it empty');

select * from finish();
rollback;
