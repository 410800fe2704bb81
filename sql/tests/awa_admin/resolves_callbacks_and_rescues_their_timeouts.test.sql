-- A member of awa_admin resolves callback tokens by any of the four
-- resolutions and runs the callback-timeout rescue.
begin;
select plan(5);

create temp table p (name text, callback_id uuid);
insert into p select 'complete', callback_id from awa_test.claim_parked('admin_cb', '2030-01-01 12:00:00+00');
insert into p select 'fail', callback_id from awa_test.claim_parked('admin_cb', '2030-01-01 12:00:00+00');
insert into p select 'retry', callback_id from awa_test.claim_parked('admin_cb', '2030-01-01 12:00:00+00');
insert into p select 'resume', callback_id from awa_test.claim_parked('admin_cb', '2030-01-01 12:00:00+00');
insert into p select 'timeout', callback_id from awa_test.claim_parked('admin_cb', '2030-01-01 12:00:00+00', interval '1 minute');
grant select on p to awa_test_admin;

set local role awa_test_admin;
select is((select outcome::text || '/' || state from p, awa.complete_external(callback_id, '{}') where name = 'complete'),
          'applied/completed', 'complete_external completes a parked job');
select is((select outcome::text || '/' || state from p, awa.fail_external(callback_id, 'no') where name = 'fail'),
          'applied/failed', 'fail_external fails one');
select is((select outcome::text || '/' || state from p, awa.retry_external(callback_id, 'later') where name = 'retry'),
          'applied/retryable', 'retry_external retries one');
select is((select outcome::text || '/' || state from p, awa.resume_external(callback_id, '{}') where name = 'resume'),
          'applied/available', 'resume_external resumes one');
select is((select count(*) from awa.rescue_expired_callbacks(10, '2030-01-01 12:05:00+00')), 1::bigint,
          'rescue_expired_callbacks retries the timed-out one');
reset role;

select * from finish();
rollback;
