-- A limit outside 1..100000 (or NULL) raises AW010 and promotes nothing.
begin;
select plan(5);

create temp table j as
select * from awa.insert_job('promote.k', '{}', jsonb_build_object('queue', 'pq', 'run_at', now() + interval '10 seconds'));
create temp table before as select awa_test.row_counts() as c;

select throws_ok($$select * from awa.promote_due_jobs(0, now() + interval '1 hour')$$,
                 'AW010', 'awa: limit must be between 1 and 100000, got 0', 'limit 0 raises AW010');
select throws_ok($$select * from awa.promote_due_jobs(100001, now() + interval '1 hour')$$,
                 'AW010', 'awa: limit must be between 1 and 100000, got 100001', 'limit 100001 raises AW010');
select throws_ok($$select * from awa.promote_due_jobs(null, now() + interval '1 hour')$$,
                 'AW010', null, 'a NULL limit raises AW010');

select is(awa_test.row_counts(), (select c from before), 'the failed calls wrote nothing');
select is((select state from awa.jobs where id = (select id from j)), 'scheduled'::awa.job_state,
          'the due job is still scheduled');

select * from finish();
rollback;
