-- With the lanes cached, awa._append_one appends the job as
-- awa._append_ready does: a ready row of the current queue slot, in the lane
-- this transaction holds, at the start of a fresh block of positions, with
-- the job's body unchanged; awa.insert_job takes it for a plain job.
begin;
select plan(6);

select awa.insert_job('k', '{}', '{"queue": "one_append"}');
create temp table j as
select awa._build_job_body(nextval('awa.job_id_seq'), 'k2', '{"n": 1}',
                           '{"queue": "one_append", "tags": ["t"], "metadata": {"m": 1}, "max_attempts": 3}', now()) as b;
select is((select awa._append_one(b) from j), true, 'true');

create temp table r as
select e.* from awa.ready_entries e, j where e.job_id = (j.b).job_id;
select is((select count(*) from r), 1::bigint, 'one ready row');
select is((select ready_slot from r), awa._current_slot('queue'), 'in the current queue slot');
select is((select lane_id from r),
          (select e.lane_id from awa.ready_entries e where e.queue = 'one_append' and e.kind = 'k'),
          'in the lane the transaction already holds');
select ok((select r.lane_seq % 1024 = 0 and r.lane_seq > (select e.lane_seq from awa.ready_entries e
                                                          where e.queue = 'one_append' and e.kind = 'k') from r),
          'at the start of a later block of positions');
select is((select row(r.job_id, r.run_lease, r.attempt, r.max_attempts, r.priority, r.queue, r.kind, r.args, r.tags,
                      r.metadata, r.errors, r.created_at, r.run_at)::awa._job_body from r),
          (select b from j), 'with the job''s body');

select * from finish();
rollback;
