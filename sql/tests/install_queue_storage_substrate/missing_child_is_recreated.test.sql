-- A ring child that is missing (dropped by hand) is created again by the next
-- install call; the others are left alone.
begin;
select plan(2);

drop table awa.leases_7;
select lives_ok($$select * from awa.install_queue_storage_substrate()$$, 'install runs with a child missing');
select is(pg_get_expr(c.relpartbound, c.oid), 'FOR VALUES IN (7)', 'awa.leases_7 exists again as the partition of slot 7')
from pg_class c where c.oid = to_regclass('awa.leases_7');

select * from finish();
rollback;
