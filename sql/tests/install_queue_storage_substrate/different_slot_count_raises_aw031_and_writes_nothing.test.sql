-- Asking for another slot count than a ring was installed with raises AW031
-- naming the ring; nothing is written and no partition is created.
begin;
select plan(6);

create temp table before as select awa_test.row_counts() as c;
create temp table n_children as
select count(*) as n from pg_inherits i join pg_class p on p.oid = i.inhparent where p.relnamespace = 'awa'::regnamespace;

select throws_ok($$select * from awa.install_queue_storage_substrate(32, 8, 8)$$,
                 'AW031', 'awa: queue ring is installed with 16 slots, cannot change to 32', 'a new queue slot count raises AW031');
select throws_ok($$select * from awa.install_queue_storage_substrate(16, 4, 8)$$,
                 'AW031', 'awa: claim ring is installed with 8 slots, cannot change to 4', 'a new claim slot count raises AW031');
select throws_ok($$select * from awa.install_queue_storage_substrate(16, 8, 16)$$,
                 'AW031', 'awa: lease ring is installed with 8 slots, cannot change to 16', 'a new lease slot count raises AW031');
select throws_ok($$select * from awa.install_queue_storage_substrate(16, 8, 8, 4)$$,
                 'AW031', 'awa: cursor ring is installed with 2 slots, cannot change to 4', 'a new cursor slot count raises AW031');

select is(awa_test.row_counts(), (select c from before), 'the failed calls wrote nothing');
select is((select count(*) from pg_inherits i join pg_class p on p.oid = i.inhparent where p.relnamespace = 'awa'::regnamespace),
          (select n from n_children), 'no partition was created');

select * from finish();
rollback;
