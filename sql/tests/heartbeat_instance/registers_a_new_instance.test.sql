-- The first heartbeat of an instance registers it, started and heartbeating
-- at p_now; without p_now it uses now().
begin;
select plan(3);

select results_eq(
  $$select instance_id, started_at, heartbeat_at
    from awa.heartbeat_instance('00000000-0000-0000-0000-000000000001', '2030-01-01 12:00:00+00')$$,
  $$values ('00000000-0000-0000-0000-000000000001'::uuid, '2030-01-01 12:00:00+00'::timestamptz, '2030-01-01 12:00:00+00'::timestamptz)$$,
  'returns the registered instance, started and heartbeating at p_now');
select results_eq(
  $$select started_at, heartbeat_at from awa.runtime_instances where instance_id = '00000000-0000-0000-0000-000000000001'$$,
  $$values ('2030-01-01 12:00:00+00'::timestamptz, '2030-01-01 12:00:00+00'::timestamptz)$$,
  'awa.runtime_instances holds one row for it');
select results_eq(
  $$select started_at, heartbeat_at from awa.heartbeat_instance('00000000-0000-0000-0000-000000000002')$$,
  $$values (now(), now())$$,
  'without p_now the instance is registered at now()');

select * from finish();
rollback;
