-- awa.run_maintenance commits after every step, so it must be called outside
-- a transaction block (CALL in autocommit, as pg_cron does). Inside one, its
-- first COMMIT, before any write, raises PostgreSQL's 2D000
-- (invalid_transaction_termination): nothing is written, not even the
-- leader lease.
begin;
select plan(3);

select * from awa.insert_job('k', '{}', '{"queue": "rm_q"}');  -- something a tick would touch
select throws_ok($$call awa.run_maintenance()$$, '2D000', 'invalid transaction termination',
                 'called inside a transaction block it raises 2D000');
select awa_test.writes_nothing($q$do $x$
  declare r jsonb;
  begin
    call awa.run_maintenance(report => r);
  exception when sqlstate '2D000' then null;
  end $x$$q$, 'and writes nothing');
select is((select count(*)::int from awa.leader_leases), 0, 'no leader lease was taken');

select * from finish();
rollback;
