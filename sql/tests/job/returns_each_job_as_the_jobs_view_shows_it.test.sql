-- awa.job(id) returns the one row awa.jobs shows for id, whole, for a job in
-- every state (the every-state fixture), with the view's row type.
begin;
select plan(3);

select awa_test.state_fixture();

select bag_eq($$select j.* from fx cross join lateral awa.job(fx.id) as j$$,
              $$select * from awa.jobs where id in (select id from fx)$$,
              'awa.job(id) of each fixture job is its awa.jobs row');
select bag_eq($$select j.id, j.state, j.dlq from fx cross join lateral awa.job(fx.id) as j$$,
              $$select id, want, dlq from fx$$,
              'each in its expected state, with its dlq flag');
select is((select prorettype::regtype from pg_proc where oid = 'awa.job(bigint)'::regprocedure), 'awa.jobs'::regtype,
          'awa.job returns the row type of awa.jobs');

select * from finish();
rollback;
