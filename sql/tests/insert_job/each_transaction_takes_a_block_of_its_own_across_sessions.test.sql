-- Two sessions inserting at once each take a block of their own: their ids
-- never meet, each transaction's single inserts are consecutive, and a block
-- drawn later starts above the ones drawn before. A transaction that
-- inserted one job and ended (here rolled back, as a commit ends it too)
-- leaves its block: the session's next transaction draws a new one.
-- The other session inserts into a queue of its own: this transaction's
-- uncommitted lanes of ses_ids would make it wait.
begin;
select plan(7);

select awa_test.connect_other();
create temp table ids (what text primary key, id bigint);
insert into ids select 'a1', id from awa.insert_job('ses.k', '{}', '{"queue": "ses_ids"}');
select dblink_exec('awa_other', 'begin');
insert into ids select 'b1', id
  from dblink('awa_other', $$select id from awa.insert_job('ses.k', '{}', '{"queue": "ses_other"}')$$) as t (id bigint);
insert into ids select 'a2', id from awa.insert_job('ses.k', '{}', '{"queue": "ses_ids"}');
insert into ids select 'b2', id
  from dblink('awa_other', $$select id from awa.insert_job('ses.k', '{}', '{"queue": "ses_other"}')$$) as t (id bigint);
select dblink_exec('awa_other', 'rollback');
select dblink_exec('awa_other', 'begin');
insert into ids select 'b3', id
  from dblink('awa_other', $$select id from awa.insert_job('ses.k', '{}', '{"queue": "ses_other"}')$$) as t (id bigint);
select dblink_exec('awa_other', 'rollback');

select is((select id from ids where what = 'a2'), (select id from ids where what = 'a1') + 1,
          'this transaction''s inserts are consecutive');
select is((select id from ids where what = 'b2'), (select id from ids where what = 'b1') + 1,
          'the other session''s are too');
select ok((select id from ids where what = 'b1') >= (select id from ids where what = 'a1') + 1024
          and (select id from ids where what = 'b1') % 1024 = 1,
          'the other session''s block, drawn later, starts above this one''s block');
select ok((select id from ids where what = 'b3') >= (select id from ids where what = 'b1') + 1024
          and (select id from ids where what = 'b3') % 1024 = 1,
          'the other session''s next transaction draws a new block');
select is((select count(distinct id) from ids), 5::bigint, 'no id is given twice');
select is((select count(*) from awa.jobs where queue = 'ses_ids'), 2::bigint,
          'this transaction''s two jobs are here (the other session rolled back its own)');

select dblink_disconnect('awa_other');
select * from finish();
rollback;
