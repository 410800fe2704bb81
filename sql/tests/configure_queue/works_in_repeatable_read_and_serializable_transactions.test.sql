-- awa.configure_queue is not guarded: it works the same in REPEATABLE READ and
-- SERIALIZABLE transactions as at READ COMMITTED (its concurrent cases are
-- in internal/sqlrace/isolation_test.go).
begin isolation level repeatable read;
select awa_test.outcome($$select * from awa.configure_queue('iso_cfg', '{"dlq": true}')$$) as rr \gset
select (select count(*) = 1 as ok from awa.queue_meta where queue = 'iso_cfg' and dlq_enabled) as rr_ok \gset
rollback;
begin isolation level serializable;
select awa_test.outcome($$select * from awa.configure_queue('iso_cfg', '{"dlq": true}')$$) as sr \gset
select (select count(*) = 1 as ok from awa.queue_meta where queue = 'iso_cfg' and dlq_enabled) as sr_ok \gset
rollback;
begin isolation level read committed;
select awa_test.outcome($$select * from awa.configure_queue('iso_cfg', '{"dlq": true}')$$) as rc \gset
select (select count(*) = 1 as ok from awa.queue_meta where queue = 'iso_cfg' and dlq_enabled) as rc_ok \gset
rollback;

begin;
select plan(6);
select * from awa_test.works_at_every_level(:'rr', :'rr_ok', :'sr', :'sr_ok', :'rc', :'rc_ok');
select * from finish();
rollback;
