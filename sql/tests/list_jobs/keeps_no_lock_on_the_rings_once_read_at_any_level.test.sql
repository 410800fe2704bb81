-- A transaction that read awa.list_jobs and then sits idle keeps no lock on
-- any table of schema awa, ring or archive, at any level: the read ran in a
-- subtransaction rolled back before it returned, so neither prune's TRUNCATE
-- nor a cohort's DROP waits for it (docs/storage.md, "Read surfaces").
begin;
select plan(9);
select * from awa_test.keeps_no_lock_after('select count(*) from awa.list_jobs()', 'awa.list_jobs()');
select * from finish();
rollback;
