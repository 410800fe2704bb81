-- awa.release_leader_lease is not guarded: it works the same in REPEATABLE READ and
-- SERIALIZABLE transactions as at READ COMMITTED.
begin isolation level repeatable read;
select * from awa.acquire_leader_lease('iso_lease', '00000000-0000-0000-0000-0000000000aa', '10 seconds');
select awa_test.outcome($$select * from awa.release_leader_lease('iso_lease', '00000000-0000-0000-0000-0000000000aa')$$) as rr \gset
select (select count(*) = 0 as ok from awa.leader_leases where name = 'iso_lease') as rr_ok \gset
rollback;
begin isolation level serializable;
select * from awa.acquire_leader_lease('iso_lease', '00000000-0000-0000-0000-0000000000aa', '10 seconds');
select awa_test.outcome($$select * from awa.release_leader_lease('iso_lease', '00000000-0000-0000-0000-0000000000aa')$$) as sr \gset
select (select count(*) = 0 as ok from awa.leader_leases where name = 'iso_lease') as sr_ok \gset
rollback;
begin isolation level read committed;
select * from awa.acquire_leader_lease('iso_lease', '00000000-0000-0000-0000-0000000000aa', '10 seconds');
select awa_test.outcome($$select * from awa.release_leader_lease('iso_lease', '00000000-0000-0000-0000-0000000000aa')$$) as rc \gset
select (select count(*) = 0 as ok from awa.leader_leases where name = 'iso_lease') as rc_ok \gset
rollback;

begin;
select plan(6);
select * from awa_test.works_at_every_level(:'rr', :'rr_ok', :'sr', :'sr_ok', :'rc', :'rc_ok');
select * from finish();
rollback;
