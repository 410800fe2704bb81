-- A call of one job is a single insert: it takes the next id of the
-- transaction's block, as awa.insert_job does (also for a scheduled job,
-- which insert_job hands to insert_jobs). A call of two or more draws fresh
-- blocks and closes the transaction's block, so the next single insert draws
-- a block above the call's: ids follow call order within a transaction.
begin;
select plan(5);

create temp table ids (ord int primary key, id bigint);
insert into ids select 1, id from awa.insert_job('one.k', '{}', '{"queue": "one_ids"}');
insert into ids select 2, id from awa.insert_jobs(array['one.k'], null, array['{"queue": "one_ids"}'::jsonb]);
insert into ids select 3, id from awa.insert_job('one.k', '{}',
                                                 jsonb_build_object('queue', 'one_ids', 'run_at', now() + interval '1 hour'));
insert into ids select 3 + row_number() over (), id
  from awa.insert_jobs(array['one.k', 'one.k'], null, array['{"queue": "one_ids"}', '{"queue": "one_ids"}']::jsonb[]);
insert into ids select 6, id from awa.insert_job('one.k', '{}', '{"queue": "one_ids"}');

select results_eq($$select id - (select id from ids where ord = 1) from ids where ord <= 3 order by ord$$,
                  $$values (0::bigint), (1), (2)$$,
                  'insert_job, insert_jobs of one and a scheduled insert_job take consecutive ids of one block');
select ok((select id from ids where ord = 4) % 1024 = 1 and (select id from ids where ord = 4) > (select id from ids where ord = 3),
          'a call of two draws a fresh block above it');
select is((select id from ids where ord = 5), (select id from ids where ord = 4) + 1, 'the call''s ids are dense');
select ok((select id from ids where ord = 6) % 1024 = 1 and (select id from ids where ord = 6) > (select id from ids where ord = 5),
          'the next single insert draws a new block, above the call''s');
select is((select count(*) from awa.jobs where queue = 'one_ids'), 6::bigint, 'six jobs, each under its id');

select * from finish();
rollback;
