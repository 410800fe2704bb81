-- awa.listen_queues is not guarded: it works the same in REPEATABLE READ and
-- SERIALIZABLE transactions as at READ COMMITTED: the session listens from
-- the commit on. (These transactions commit: LISTEN writes no table.)
begin isolation level repeatable read;
select awa_test.outcome($$select awa.listen_queues(array['iso_l']) as r$$) as rr \gset
commit;
select (select count(*) = 1 as ok from pg_listening_channels() c where c = 'awa:iso_l') as rr_ok \gset
unlisten *;
begin isolation level serializable;
select awa_test.outcome($$select awa.listen_queues(array['iso_l']) as r$$) as sr \gset
commit;
select (select count(*) = 1 as ok from pg_listening_channels() c where c = 'awa:iso_l') as sr_ok \gset
unlisten *;
begin isolation level read committed;
select awa_test.outcome($$select awa.listen_queues(array['iso_l']) as r$$) as rc \gset
commit;
select (select count(*) = 1 as ok from pg_listening_channels() c where c = 'awa:iso_l') as rc_ok \gset
unlisten *;

begin;
select plan(6);
select * from awa_test.works_at_every_level(:'rr', :'rr_ok', :'sr', :'sr_ok', :'rc', :'rc_ok');
select * from finish();
rollback;
