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
select * from awa_test.works_at_every_level(:'rr', :'rr_ok', :'sr', :'sr_ok', :'rc', :'rc_ok');
select * from finish();
rollback;
