-- awa.heartbeat_instance is not guarded: it works the same in REPEATABLE READ and
-- SERIALIZABLE transactions as at READ COMMITTED (its concurrent cases are
-- in internal/sqlrace/isolation_test.go).
begin isolation level repeatable read;
select awa_test.outcome($$select * from awa.heartbeat_instance('00000000-0000-0000-0000-0000000000aa')$$) as rr \gset
select (select count(*) = 1 as ok from awa.runtime_instances where instance_id = '00000000-0000-0000-0000-0000000000aa') as rr_ok \gset
rollback;
begin isolation level serializable;
select awa_test.outcome($$select * from awa.heartbeat_instance('00000000-0000-0000-0000-0000000000aa')$$) as sr \gset
select (select count(*) = 1 as ok from awa.runtime_instances where instance_id = '00000000-0000-0000-0000-0000000000aa') as sr_ok \gset
rollback;
begin isolation level read committed;
select awa_test.outcome($$select * from awa.heartbeat_instance('00000000-0000-0000-0000-0000000000aa')$$) as rc \gset
select (select count(*) = 1 as ok from awa.runtime_instances where instance_id = '00000000-0000-0000-0000-0000000000aa') as rc_ok \gset
rollback;

begin;
select plan(6);
select is(:'rr'::jsonb ->> 'sqlstate', null, 'succeeds at repeatable read');
select ok(:'rr_ok'::boolean, 'has its effect at repeatable read');
select is(:'sr'::jsonb ->> 'sqlstate', null, 'succeeds at serializable');
select ok(:'sr_ok'::boolean, 'has its effect at serializable');
select is(:'rc'::jsonb ->> 'sqlstate', null, 'succeeds at read committed');
select ok(:'rc_ok'::boolean, 'has its effect at read committed');
select * from finish();
rollback;
