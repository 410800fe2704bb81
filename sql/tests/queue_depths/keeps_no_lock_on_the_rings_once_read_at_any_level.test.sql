-- A transaction that read awa.queue_depths() and then sits idle (a metrics
-- poll inside an app transaction) keeps no lock on any ring child, at any
-- level: the read ran in a subtransaction rolled back before it returned, so
-- prune's TRUNCATE is not blocked (docs/storage.md, "Read surfaces").
begin;
select plan(9);
select * from awa_test.keeps_no_lock_after('select count(*) from awa.queue_depths()', 'awa.queue_depths()');
select * from finish();
rollback;
