-- A later heartbeat of a registered instance moves heartbeat_at forward and
-- keeps started_at, in the same single row.
begin;
select plan(3);

select * from awa.heartbeat_instance('00000000-0000-0000-0000-0000000000b1', '2030-01-01 12:00:00+00');
select results_eq(
  $$select started_at, heartbeat_at from awa.heartbeat_instance('00000000-0000-0000-0000-0000000000b1', '2030-01-01 12:00:30+00')$$,
  $$values ('2030-01-01 12:00:00+00'::timestamptz, '2030-01-01 12:00:30+00'::timestamptz)$$,
  'the refresh returns the new heartbeat and the original start');
select is((select count(*) from awa.runtime_instances where instance_id = '00000000-0000-0000-0000-0000000000b1'), 1::bigint,
  'the instance still has one row');
select is((select heartbeat_at from awa.runtime_instances where instance_id = '00000000-0000-0000-0000-0000000000b1'),
  '2030-01-01 12:00:30+00'::timestamptz, 'the stored heartbeat is the new one');

select * from finish();
rollback;
