-- A transaction that read awa.get_job(id) and then sits idle keeps no lock on
-- any table of schema awa, at any level: the read ran in a subtransaction
-- rolled back before it returned (docs/storage.md, "Read surfaces").
begin;
select plan(9);
select * from awa_test.keeps_no_lock_after('select count(*) from awa.get_job(1)', 'awa.get_job(id)');
select * from finish();
rollback;
