-- A transaction that read awa.terminal_jobs and then sits idle (a dashboard, an app
-- transaction) keeps no lock on any ring child, at any level: the read ran in
-- a subtransaction rolled back before it returned, so prune's TRUNCATE is
-- not blocked (issue 7, observation 9; docs/storage.md, "Read surfaces").
begin;
select plan(9);
select * from awa_test.keeps_no_lock_after('select count(*) from awa.terminal_jobs', 'awa.terminal_jobs');
select * from finish();
rollback;
