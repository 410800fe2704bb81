-- Anything but a partition of awa.archived_chunks is refused with AW010:
-- NULL, the parent itself, or another table.
begin;
select plan(3);

select throws_ok($$select * from awa.archived_cohort_jobs(null)$$, 'AW010',
                 'awa: cohort must be a partition of awa.archived_chunks, got NULL', 'NULL is refused');
select throws_ok($$select * from awa.archived_cohort_jobs('awa.archived_chunks')$$, 'AW010',
                 'awa: cohort must be a partition of awa.archived_chunks, got awa.archived_chunks',
                 'the parent is refused');
select throws_ok($$select * from awa.archived_cohort_jobs('awa.dlq_entries')$$, 'AW010',
                 'awa: cohort must be a partition of awa.archived_chunks, got awa.dlq_entries',
                 'another table is refused');

select * from finish();
rollback;
