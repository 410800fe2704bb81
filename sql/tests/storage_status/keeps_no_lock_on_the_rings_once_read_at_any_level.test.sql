-- A transaction that read awa.storage_status() and then sits idle keeps no
-- lock on any ring child, at any level: the read ran in a subtransaction
-- rolled back before it returned, so an idle caller never blocks prune.
begin;
select plan(9);
select * from awa_test.keeps_no_lock_after('select count(*) from awa.storage_status()', 'awa.storage_status()');
select * from finish();
rollback;
