-- awa.run_maintenance checks its arguments before it writes or commits
-- anything: a NULL holder, a lease ttl outside 1 s..1 h, a stale_after or ring
-- interval that is not positive, keep_sealed outside 0..14, batch outside
-- 1..100000, lock_timeout_ms outside 1..60000 raise AW010 with the value, and
-- nothing is written (not even the leader lease).
begin;
select plan(10);

select throws_ok($$call awa.run_maintenance(p_holder => null)$$, 'AW010',
                 'awa: holder must not be null', 'a NULL holder raises AW010');
select throws_ok($$call awa.run_maintenance(p_lease_ttl => interval '0')$$, 'AW010',
                 'awa: lease ttl must be between 1 second and 1 hour, got 00:00:00', 'a zero lease ttl raises AW010');
select throws_ok($$call awa.run_maintenance(p_lease_ttl => interval '2 hours')$$, 'AW010',
                 'awa: lease ttl must be between 1 second and 1 hour, got 02:00:00', 'a two-hour lease ttl raises AW010');
select throws_ok($$call awa.run_maintenance(p_stale_after => interval '0')$$, 'AW010',
                 'awa: stale_after and the ring intervals must be positive, got 00:00:00, 00:00:05, 00:00:02, 00:00:02',
                 'a zero stale_after raises AW010');
select throws_ok($$call awa.run_maintenance(p_cursor_ring_interval => null)$$, 'AW010',
                 'awa: stale_after and the ring intervals must be positive, got 00:01:30, 00:00:05, 00:00:02, <NULL>',
                 'a NULL ring interval raises AW010');
select throws_ok($$call awa.run_maintenance(p_keep_sealed => 15)$$, 'AW010',
                 'awa: keep_sealed must be between 0 and 14, got 15', 'keep_sealed 15 raises AW010');
select throws_ok($$call awa.run_maintenance(p_batch => 0)$$, 'AW010',
                 'awa: batch must be between 1 and 100000, got 0', 'batch 0 raises AW010');
select throws_ok($$call awa.run_maintenance(p_lock_timeout_ms => 0)$$, 'AW010',
                 'awa: lock_timeout_ms must be between 1 and 60000, got 0', 'lock_timeout_ms 0 raises AW010');

select * from awa.insert_job('k', '{}', '{"queue": "rm_q"}');  -- something a tick would touch
select awa_test.writes_nothing($q$do $x$
  declare r jsonb;
  begin
    begin call awa.run_maintenance(p_holder => null, report => r); exception when sqlstate 'AW010' then null; end;
    begin call awa.run_maintenance(p_lease_ttl => interval '0', report => r); exception when sqlstate 'AW010' then null; end;
    begin call awa.run_maintenance(p_stale_after => interval '-1 second', report => r); exception when sqlstate 'AW010' then null; end;
    begin call awa.run_maintenance(p_keep_sealed => -1, report => r); exception when sqlstate 'AW010' then null; end;
    begin call awa.run_maintenance(p_batch => 100001, report => r); exception when sqlstate 'AW010' then null; end;
    begin call awa.run_maintenance(p_lock_timeout_ms => 60001, report => r); exception when sqlstate 'AW010' then null; end;
  end $x$$q$, 'the bad calls write nothing');
select is((select count(*)::int from awa.leader_leases), 0, 'no leader lease was taken');

select * from finish();
rollback;
