-- awa.insert_staged_jobs works inside REPEATABLE READ and SERIALIZABLE transactions as at
-- READ COMMITTED (applications enqueue from their own transactions): the
-- jobs are inserted and visible to the transaction in their state.
begin isolation level repeatable read;
select awa.open_job_stage();
insert into pg_temp.awa_job_stage (kind, args, opts) values ('a', '{}', '{"queue": "iso_ins"}'), ('b', '{}', null);
select awa_test.outcome($$select count(*) as n from (select * from awa.insert_staged_jobs()) as i$$) as rr \gset
select count(*) as rr_seen from awa.jobs where queue in ('iso_ins', 'default') and state in ('available', 'scheduled') \gset
rollback;
begin isolation level serializable;
select awa.open_job_stage();
insert into pg_temp.awa_job_stage (kind, args, opts) values ('a', '{}', '{"queue": "iso_ins"}'), ('b', '{}', null);
select awa_test.outcome($$select count(*) as n from (select * from awa.insert_staged_jobs()) as i$$) as sr \gset
select count(*) as sr_seen from awa.jobs where queue in ('iso_ins', 'default') and state in ('available', 'scheduled') \gset
rollback;
begin isolation level read committed;
select awa.open_job_stage();
insert into pg_temp.awa_job_stage (kind, args, opts) values ('a', '{}', '{"queue": "iso_ins"}'), ('b', '{}', null);
select awa_test.outcome($$select count(*) as n from (select * from awa.insert_staged_jobs()) as i$$) as rc \gset
select count(*) as rc_seen from awa.jobs where queue in ('iso_ins', 'default') and state in ('available', 'scheduled') \gset
rollback;

begin;
select plan(9);
select is(:'rr'::jsonb ->> 'sqlstate', null, 'succeeds at repeatable read');
select is((:'rr'::jsonb #>> '{result,n}')::int, 2, 'returns a row per job at repeatable read');
select is(:rr_seen::int, 2, 'the transaction sees its jobs at repeatable read');
select is(:'sr'::jsonb ->> 'sqlstate', null, 'succeeds at serializable');
select is((:'sr'::jsonb #>> '{result,n}')::int, 2, 'returns a row per job at serializable');
select is(:sr_seen::int, 2, 'the transaction sees its jobs at serializable');
select is(:'rc'::jsonb ->> 'sqlstate', null, 'succeeds at read committed');
select is((:'rc'::jsonb #>> '{result,n}')::int, 2, 'returns a row per job at read committed');
select is(:rc_seen::int, 2, 'the transaction sees its jobs at read committed');
select * from finish();
rollback;
