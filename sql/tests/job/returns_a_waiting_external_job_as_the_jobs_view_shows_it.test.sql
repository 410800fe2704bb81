-- awa.job(id) of a job waiting for its callback, parked or waiting in
-- sequence, is its awa.jobs row: state waiting_external.
begin;
select plan(2);

create temp table w as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00');
create temp table p as select * from awa_test.claim_parked('cb', '2030-01-01 12:00:00+00');
select bag_eq($$select j.* from (select id from w union all select id from p) x cross join lateral awa.job(x.id) j$$,
              $$select * from awa.jobs where id in ((select id from w), (select id from p))$$,
              'awa.job(id) of each is its awa.jobs row');
select results_eq($$select j.state, j.attempt from (select id from w union all select id from p) x cross join lateral awa.job(x.id) j$$,
                  $$values ('waiting_external'::awa.job_state, 1), ('waiting_external', 1)$$,
                  'both waiting_external, attempt 1');

select * from finish();
rollback;
