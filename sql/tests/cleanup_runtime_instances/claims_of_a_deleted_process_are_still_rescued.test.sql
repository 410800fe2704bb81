-- Deleting a process row never strands its claims: stale rescue treats a
-- claim whose process row is gone as stale.
begin;
select plan(2);

select * from awa.heartbeat_instance('00000000-0000-0000-0000-0000000000b1', '2030-01-01 10:00:00+00');
select * from awa.insert_job('k', '{}', '{"queue": "cl"}');
create temp table c as
select * from awa.claim_ready_runtime('cl', 1, '00000000-0000-0000-0000-0000000000b1', '2030-01-01 10:00:00+00');

select is((select count(*) from awa.cleanup_runtime_instances(interval '1 hour', '2030-01-01 12:00:00+00')),
          1::bigint, 'the silent process row is deleted');
select results_eq(
    $$select job_id, outcome::text, state::text
      from awa.rescue_stale_claims(interval '90 seconds', 100, '2030-01-01 12:00:00+00')$$,
    $$select id, 'applied', 'retryable' from c$$,
    'its open claim is rescued and retried');

select * from finish();
rollback;
