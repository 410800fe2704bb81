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
select is(:'rr'::jsonb ->> 'sqlstate', null, 'succeeds at repeatable read');
select ok(:'rr_ok'::boolean, 'has its effect at repeatable read');
select is(:'sr'::jsonb ->> 'sqlstate', null, 'succeeds at serializable');
select ok(:'sr_ok'::boolean, 'has its effect at serializable');
select is(:'rc'::jsonb ->> 'sqlstate', null, 'succeeds at read committed');
select ok(:'rc_ok'::boolean, 'has its effect at read committed');
select * from finish();
rollback;
