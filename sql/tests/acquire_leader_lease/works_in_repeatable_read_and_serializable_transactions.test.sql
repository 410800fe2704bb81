-- awa.acquire_leader_lease is not guarded: it works the same in REPEATABLE READ and
-- SERIALIZABLE transactions as at READ COMMITTED (its concurrent cases are
-- in internal/sqlrace/isolation_test.go).
begin isolation level repeatable read;
select awa_test.outcome($$select * from awa.acquire_leader_lease('iso_lease', '00000000-0000-0000-0000-0000000000aa', '10 seconds')$$) as rr \gset
select (select bool_and(holder = '00000000-0000-0000-0000-0000000000aa') and count(*) = 1 as ok from awa.leader_leases where name = 'iso_lease') as rr_ok \gset
rollback;
begin isolation level serializable;
select awa_test.outcome($$select * from awa.acquire_leader_lease('iso_lease', '00000000-0000-0000-0000-0000000000aa', '10 seconds')$$) as sr \gset
select (select bool_and(holder = '00000000-0000-0000-0000-0000000000aa') and count(*) = 1 as ok from awa.leader_leases where name = 'iso_lease') as sr_ok \gset
rollback;
begin isolation level read committed;
select awa_test.outcome($$select * from awa.acquire_leader_lease('iso_lease', '00000000-0000-0000-0000-0000000000aa', '10 seconds')$$) as rc \gset
select (select bool_and(holder = '00000000-0000-0000-0000-0000000000aa') and count(*) = 1 as ok from awa.leader_leases where name = 'iso_lease') as rc_ok \gset
rollback;

begin;
select plan(6);
select * from awa_test.works_at_every_level(:'rr', :'rr_ok', :'sr', :'sr_ok', :'rc', :'rc_ok');
select * from finish();
rollback;
