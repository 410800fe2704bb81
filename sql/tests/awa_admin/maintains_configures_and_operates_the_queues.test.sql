-- A member of awa_admin does the operator's whole job: maintenance (lease,
-- promote, both rescues, rotate, prune, cleanup; run_maintenance is executable
-- and refuses only the transaction block), queue configuration, cancel by id,
-- the DLQ (retry, purge), counts, the awa.jobs / awa.terminal_jobs listings
-- and awa.job.
begin;
select plan(18);

select is((select count(*) from awa.insert_job('a.cancel', '{}', '{"queue": "admin_c"}')), 1::bigint,
          'a job is enqueued (fixture, as the owner)');
create temp table dlq (id bigint);
insert into dlq select awa_test.dlq_job('admin_q', now() - interval '1 hour') from generate_series(1, 2);
grant select on dlq to awa_test_admin;

set local role awa_test_admin;
select throws_ok($$call awa.run_maintenance()$$, '2D000', null,
                 'run_maintenance is executable (inside a transaction block it raises 2D000, not 42501)');
select is((select is_leader from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000ad',
                                                          interval '1 minute')), true, 'acquire_leader_lease leads');
select is((select count(*) from awa.release_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000ad')),
          1::bigint, 'release_leader_lease releases');
select lives_ok($$select * from awa.promote_due_jobs()$$, 'promote_due_jobs runs');
select lives_ok($$select * from awa.rescue_stale_claims()$$, 'rescue_stale_claims runs');
select lives_ok($$select * from awa.rescue_expired_deadlines()$$, 'rescue_expired_deadlines runs');
select is((select outcome from awa.rotate_ring('claim')), 'rotated', 'rotate_ring rotates the claim ring');
select isnt((select count(*) from awa.prune_ring('queue')), 0::bigint, 'prune_ring reports an outcome');
select lives_ok($$select * from awa.cleanup_runtime_instances()$$, 'cleanup_runtime_instances runs');
select is((select dlq_enabled from awa.configure_queue('admin_q2', '{"dlq": true}')), true,
          'configure_queue configures a queue');
select is((select outcome::text || '/' || state from awa.cancel_job((select id from awa.jobs where kind = 'a.cancel'))),
          'applied/cancelled', 'cancel_job cancels a job by id');
select is((select state from awa.retry_dlq_job((select min(id) from dlq))), 'available'::awa.job_state,
          'retry_dlq_job takes a job out of the DLQ');
select is((select count(*) from awa.purge_dlq('admin_q')), 1::bigint, 'purge_dlq purges the other');
select is((select cancelled from awa.queue_counts('admin_c')), 1::bigint, 'queue_counts counts');
select is((select count(*) from awa.jobs where queue = 'admin_q'), 1::bigint, 'awa.jobs lists the jobs');
select is((select count(*) from awa.terminal_jobs where queue = 'admin_c'), 1::bigint, 'awa.terminal_jobs lists the cancelled one');
select is((select state from awa.job((select id from awa.terminal_jobs where queue = 'admin_c'))), 'cancelled'::awa.job_state,
          'awa.job reads one job');
reset role;

select * from finish();
rollback;
