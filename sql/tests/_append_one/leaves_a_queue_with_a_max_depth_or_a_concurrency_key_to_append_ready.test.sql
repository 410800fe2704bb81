-- A queue with a max_depth or a concurrency key is left to
-- awa._append_ready (false, nothing written), though its lanes are cached:
-- through awa.insert_job, a keyed job still goes to its key's lane and a full
-- queue still raises AW060.
begin;
select plan(7);

select * from awa.configure_queue('one_deep', '{"max_depth": 2}');
select * from awa.configure_queue('one_keyed', '{"concurrency": {"key": "args.tenant", "limit": 1}}');
select awa.insert_job('k', '{}', '{"queue": "one_deep"}');
select awa.insert_job('k', '{"tenant": "a"}', '{"queue": "one_keyed"}');

select is(awa._append_one(awa._build_job_body(nextval('awa.job_id_seq'), 'k', '{}', '{"queue": "one_deep"}', now())),
  false, 'a queue with a max_depth: false');
select is(awa._append_one(awa._build_job_body(nextval('awa.job_id_seq'), 'k', '{"tenant": "a"}', '{"queue": "one_keyed"}', now())),
  false, 'a queue with a concurrency key: false');
select is((select count(*) from awa.ready_entries where queue in ('one_deep', 'one_keyed')), 2::bigint,
  'and nothing written');

select awa.insert_job('k', '{}', '{"queue": "one_deep"}');
select * from awa_test.raises_writing_nothing($$select * from awa.insert_job('k', '{}', '{"queue": "one_deep"}')$$,
  'AW060', 'awa: queue ''one_deep'' is full: adding 1 jobs to 2 or more available would pass its max_depth 2',
  'insert_job into the full queue raises AW060');
select awa.insert_job('k', '{"tenant": "b"}', '{"queue": "one_keyed"}');
select is((select count(distinct lane_id) from awa.ready_entries where queue = 'one_keyed'), 2::bigint,
  'insert_job puts two keys in two lanes');
select is((select count(*) from awa.key_lanes where queue = 'one_keyed'), 2::bigint, 'their key lanes');

select * from finish();
rollback;
