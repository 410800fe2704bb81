-- awa._wake_promoter(job_ids), the promotion wake-up rule: true (and a NOTIFY
-- on awa:+promote, delivered at commit, so not seen here) only when the
-- backlog's first job in (run_at, job_id) order is one of job_ids: the first
-- deferred job, or one due before every job already waiting. A job due at or
-- after a waiting one, an id not in the backlog, an empty or NULL array: false.
begin;
select plan(9);

create temp table j (name text primary key, id bigint);
create function pg_temp.sched(p_name text, p_in interval) returns bigint language sql as $$
  insert into j
  select p_name, i.id from awa.insert_job('wp.k', '{}', jsonb_build_object('queue', 'wp', 'run_at', now() + p_in)) i
  returning id
$$;
create function pg_temp.id(p_name text) returns bigint language sql as $$ select id from j where name = p_name $$;

select pg_temp.sched('first', '1 minute');
select is(awa._wake_promoter(array[pg_temp.id('first')]), true, 'the only deferred job: true');

select pg_temp.sched('later', '2 minutes');
select is(awa._wake_promoter(array[pg_temp.id('later')]), false, 'a job due after a waiting one: false');

select pg_temp.sched('tie', '1 minute');
select is(awa._wake_promoter(array[pg_temp.id('tie')]), false,
          'a job due at the same time as a waiting one (a higher id): false');

select pg_temp.sched('earlier', '30 seconds');
select is(awa._wake_promoter(array[pg_temp.id('earlier')]), true, 'a job due before every waiting one: true');
select is(awa._wake_promoter(array[pg_temp.id('later'), pg_temp.id('earlier')]), true,
          'a batch holding the new first job: true');
select is(awa._wake_promoter(array[pg_temp.id('first')]), false, 'the former first job: false');

select is(awa._wake_promoter(array[-1::bigint]), false, 'an id not in the backlog: false');
select is(awa._wake_promoter(array[]::bigint[]), false, 'an empty array: false');
select is(awa._wake_promoter(null), false, 'a NULL array: false');

select * from finish();
rollback;
