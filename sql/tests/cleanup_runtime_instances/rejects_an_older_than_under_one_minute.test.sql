-- older_than below one minute (or NULL) would delete live processes: AW010,
-- and nothing is deleted.
begin;
select plan(4);

select * from awa.heartbeat_instance('00000000-0000-0000-0000-0000000000c1', '2030-01-01 10:00:00+00');
create temp table before as select awa_test.row_counts() as counts;

select throws_ok($$select * from awa.cleanup_runtime_instances(interval '59 seconds', '2030-01-01 12:00:00+00')$$,
                 'AW010', 'awa: older_than must be at least one minute, got 00:00:59',
                 'older_than of 59 seconds raises AW010');
select throws_ok($$select * from awa.cleanup_runtime_instances(null, '2030-01-01 12:00:00+00')$$,
                 'AW010', 'awa: older_than must be at least one minute, got null',
                 'a NULL older_than raises AW010');
select is(awa_test.row_counts(), (select counts from before), 'no row was written or deleted');
select is((select count(*) from awa.runtime_instances), 1::bigint, 'the process row is still there');

select * from finish();
rollback;
