-- Rows of processes whose heartbeat is older than older_than are deleted and
-- returned; fresher ones stay.
begin;
select plan(3);

select * from awa.heartbeat_instance('00000000-0000-0000-0000-0000000000a1', '2030-01-01 10:00:00+00');
select * from awa.heartbeat_instance('00000000-0000-0000-0000-0000000000a2', '2030-01-01 11:30:00+00');

select results_eq(
    $$select instance_id from awa.cleanup_runtime_instances(interval '1 hour', '2030-01-01 12:00:00+00')$$,
    $$values ('00000000-0000-0000-0000-0000000000a1'::uuid)$$,
    'the process silent for two hours is deleted and returned');
select results_eq(
    $$select instance_id from awa.runtime_instances$$,
    $$values ('00000000-0000-0000-0000-0000000000a2'::uuid)$$,
    'the process heard from 30 minutes ago stays');
select is_empty(
    $$select * from awa.cleanup_runtime_instances(interval '1 hour', '2030-01-01 12:00:00+00')$$,
    'a second call deletes nothing');

select * from finish();
rollback;
