-- awa.get_job(id) returns the row awa.jobs shows for id (its columns, then
-- expires_at) for a job in every state, live or archived; an archived job
-- with its expiry.
begin;
select plan(4);

select awa_test.archive_fixture();
select awa_test.state_fixture();

select bag_eq(
  $$select j.id, j.queue, j.priority, j.kind, j.state, j.args, j.attempt, j.max_attempts, j.run_lease, j.run_at,
           j.created_at, j.claimed_at, j.finalized_at, j.tags, j.metadata, j.errors, j.dlq, j.progress, j.progress_at
    from (select id from fx union all select id from ax) as f cross join lateral awa.get_job(f.id) as j$$,
  $$select * from awa.jobs where id in (select id from fx union all select id from ax)$$,
  'awa.get_job(id) of each fixture job is its awa.jobs row');
select bag_eq($$select j.id, j.state, j.dlq from fx cross join lateral awa.get_job(fx.id) as j$$,
              $$select id, want, dlq from fx$$, 'each live job in its expected state, with its dlq flag');
select bag_eq($$select j.id, j.state, j.expires_at - j.finalized_at from ax cross join lateral awa.get_job(ax.id) as j
                where ax.queue = 'arch'$$,
              $$select id, want, case want when 'completed' then interval '24 hours' else interval '7 days' end
                from ax where queue = 'arch'$$,
              'each archived job in its state, with its expiry');
select is((select prorettype::regtype from pg_proc where oid = 'awa.get_job(bigint)'::regprocedure),
          'awa.job_listing'::regtype, 'awa.get_job returns a listing row (awa.job_listing)');

select * from finish();
rollback;
