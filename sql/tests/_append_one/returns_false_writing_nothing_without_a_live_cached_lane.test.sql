-- Without a live entry for the job's (queue, priority) in the session's lane
-- cache (none yet, another priority, or expired), awa._append_one returns
-- false, writes nothing and takes no lock: the caller takes
-- awa._append_ready, which looks the lanes up and caches them; with the
-- entry live, it appends.
begin;
select plan(6);

create temp table j as
select awa._build_job_body(nextval('awa.job_id_seq'), 'k', '{}', '{"queue": "one_nocache"}', now()) as b;

select is((select awa._append_one(b) from j), false, 'no cached lanes: false');
select is((select count(*) from awa.ready_entries where queue = 'one_nocache'), 0::bigint, 'and nothing written');
select is((select count(*) from pg_locks where pid = pg_backend_pid() and locktype = 'advisory'), 0::bigint,
  'and no advisory lock taken');

select awa.insert_job('k', '{}', '{"queue": "one_nocache", "priority": 3}');
select is((select awa._append_one(b) from j), false, 'lanes cached for another priority only: false');

select awa.insert_job('k', '{}', '{"queue": "one_nocache"}');
select set_config(awa._lane_cache_key('one_nocache', 2::smallint),
                  regexp_replace(current_setting(awa._lane_cache_key('one_nocache', 2::smallint)), '^[^|]*', '1'), false);
select is((select awa._append_one(b) from j), false, 'an expired entry: false');

select awa.insert_job('k', '{}', '{"queue": "one_nocache"}');
select is((select awa._append_one(b) from j), true, 'a live entry: the job is appended');

select * from finish();
rollback;
