-- awa.queue_counts is not guarded: it works the same in REPEATABLE READ and
-- SERIALIZABLE transactions as at READ COMMITTED (its concurrent cases are
-- in internal/sqlrace/isolation_test.go).
begin isolation level repeatable read;
select * from awa.insert_job('k', '{}', '{"queue": "iso_pend"}');
select awa_test.outcome($$select * from awa.queue_counts('iso_pend')$$) as rr \gset
select (select available = 1 as ok from awa.queue_counts('iso_pend') ) as rr_ok \gset
rollback;
begin isolation level serializable;
select * from awa.insert_job('k', '{}', '{"queue": "iso_pend"}');
select awa_test.outcome($$select * from awa.queue_counts('iso_pend')$$) as sr \gset
select (select available = 1 as ok from awa.queue_counts('iso_pend') ) as sr_ok \gset
rollback;
begin isolation level read committed;
select * from awa.insert_job('k', '{}', '{"queue": "iso_pend"}');
select awa_test.outcome($$select * from awa.queue_counts('iso_pend')$$) as rc \gset
select (select available = 1 as ok from awa.queue_counts('iso_pend') ) as rc_ok \gset
rollback;

begin;
select plan(6);
select * from awa_test.works_at_every_level(:'rr', :'rr_ok', :'sr', :'sr_ok', :'rc', :'rc_ok');
select * from finish();
rollback;
