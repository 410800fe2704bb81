-- A slot count outside 2..256 (or NULL) raises AW010; nothing is written.
begin;
select plan(6);

create temp table before as select awa_test.row_counts() as c;

select throws_ok($$select * from awa.install_queue_storage_substrate(1, 8, 8)$$,
                 'AW010', 'awa: queue ring slot count must be between 2 and 256, got 1', 'one queue slot raises AW010');
select throws_ok($$select * from awa.install_queue_storage_substrate(16, 257, 8)$$,
                 'AW010', 'awa: claim ring slot count must be between 2 and 256, got 257', '257 claim slots raise AW010');
select throws_ok($$select * from awa.install_queue_storage_substrate(16, 8, null)$$,
                 'AW010', 'awa: lease ring slot count must be between 2 and 256, got null', 'a NULL lease slot count raises AW010');
select throws_ok($$select * from awa.install_queue_storage_substrate(16, 8, 0)$$,
                 'AW010', null, 'zero lease slots raise AW010 (range is checked before the installed count)');
select throws_ok($$select * from awa.install_queue_storage_substrate(16, 8, 8, 1)$$,
                 'AW010', 'awa: cursor ring slot count must be between 2 and 256, got 1', 'one cursor slot raises AW010');

select is(awa_test.row_counts(), (select c from before), 'the failed calls wrote nothing');

select * from finish();
rollback;
