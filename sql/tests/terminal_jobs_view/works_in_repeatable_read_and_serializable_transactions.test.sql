-- the view awa.terminal_jobs is not guarded: it works the same in REPEATABLE READ and
-- SERIALIZABLE transactions as at READ COMMITTED.
begin isolation level repeatable read;
select * from awa.insert_job('k', '{}', '{"queue": "iso_pend"}');
select awa_test.outcome($$select count(*) as n from awa.terminal_jobs$$) as rr \gset
select (select count(*) = 0 as ok from awa.terminal_jobs where queue = 'iso_pend') as rr_ok \gset
rollback;
begin isolation level serializable;
select * from awa.insert_job('k', '{}', '{"queue": "iso_pend"}');
select awa_test.outcome($$select count(*) as n from awa.terminal_jobs$$) as sr \gset
select (select count(*) = 0 as ok from awa.terminal_jobs where queue = 'iso_pend') as sr_ok \gset
rollback;
begin isolation level read committed;
select * from awa.insert_job('k', '{}', '{"queue": "iso_pend"}');
select awa_test.outcome($$select count(*) as n from awa.terminal_jobs$$) as rc \gset
select (select count(*) = 0 as ok from awa.terminal_jobs where queue = 'iso_pend') as rc_ok \gset
rollback;

begin;
select plan(6);
select * from awa_test.works_at_every_level(:'rr', :'rr_ok', :'sr', :'sr_ok', :'rc', :'rc_ok');
select * from finish();
rollback;
