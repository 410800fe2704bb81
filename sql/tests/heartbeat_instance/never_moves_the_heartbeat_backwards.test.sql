-- A heartbeat older than the stored one (a delayed or clock-skewed call)
-- leaves heartbeat_at where it was.
begin;
select plan(2);

select * from awa.heartbeat_instance('00000000-0000-0000-0000-0000000000c1', '2030-01-01 12:00:00+00');
select * from awa.heartbeat_instance('00000000-0000-0000-0000-0000000000c1', '2030-01-01 12:01:00+00');
select results_eq(
  $$select started_at, heartbeat_at from awa.heartbeat_instance('00000000-0000-0000-0000-0000000000c1', '2030-01-01 12:00:30+00')$$,
  $$values ('2030-01-01 12:00:00+00'::timestamptz, '2030-01-01 12:01:00+00'::timestamptz)$$,
  'an older heartbeat returns the newer stored heartbeat');
select is((select heartbeat_at from awa.runtime_instances where instance_id = '00000000-0000-0000-0000-0000000000c1'),
  '2030-01-01 12:01:00+00'::timestamptz, 'the stored heartbeat did not move backwards');

select * from finish();
rollback;
