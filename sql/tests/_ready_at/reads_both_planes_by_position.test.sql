-- awa._ready_at returns the ready rows at the asked positions from either
-- plane: a per-row ready row by its lane position, a batch item as
-- awa._batch_items gives it; positions asked twice give one row, positions
-- that hold nothing (past a row's last item, in no row) give none.
begin;
select plan(5);

-- One lane holding both planes: a per-row job, a batch row of three, another per-row job.
create temp table p1 as select awa.insert_job('ra.p', '{"p": 1}', '{"queue": "ra"}');
create temp table ids as
select awa_test.batch_row(array['ra.a', 'ra.b', 'ra.a'], array['{"n": 1}', '{"n": 2}', '{"n": 3}']::jsonb[],
                          array['{"queue": "ra", "tags": ["x"]}', '{"queue": "ra", "metadata": {"m": 1}}',
                                '{"queue": "ra"}']::jsonb[]) as ids;
create temp table p2 as select awa.insert_job('ra.p', '{"p": 2}', '{"queue": "ra"}');
create temp table pos as
select r.ready_slot, r.lane_id, r.lane_seq, r.job_id from awa.ready_entries r where r.queue = 'ra'
union all
select i.ready_slot, i.lane_id, i.lane_seq, i.job_id
from awa.ready_batches b cross join lateral awa._batch_items(b) as i where b.queue = 'ra';

select is((select count(DISTINCT lane_id)::int from pos), 1, 'the five jobs share one lane');

select results_eq(
  $$select a.job_id, a.kind, a.args, a.tags, a.metadata, a.run_lease, a.attempt, a.max_attempts
    from awa._ready_at((select array_agg(ready_slot) from pos), (select array_agg(lane_id) from pos),
                       (select array_agg(lane_seq) from pos)) as a order by a.lane_seq$$,
  $$select r.job_id, r.kind, r.args, r.tags, r.metadata, r.run_lease, r.attempt, r.max_attempts
    from (select r.* from awa.ready_entries r where r.queue = 'ra'
          union all
          select i.* from awa.ready_batches b cross join lateral awa._batch_items(b) as i where b.queue = 'ra') as r
    order by r.lane_seq$$,
  'every position of the lane gives its row, per-row or batch item, in either plane');

select results_eq(
  $$select a.job_id, a.args from awa._ready_at(array[(select ready_slot from pos limit 1)] || array[(select ready_slot from pos limit 1)],
                                           array[(select lane_id from pos limit 1)] || array[(select lane_id from pos limit 1)],
                                           array[(select lane_seq from pos where job_id = (select ids[2] from ids))]
                                           || array[(select lane_seq from pos where job_id = (select ids[2] from ids))]) as a$$,
  $$select (select ids[2] from ids), '{"n": 2}'::jsonb$$,
  'a batch item asked twice is returned once');

select is_empty(
  $$select 1 from awa._ready_at(array[(select ready_slot from pos limit 1)], array[(select lane_id from pos limit 1)],
                                array[(select max(lane_seq) from pos where job_id = any ((select ids from ids)::bigint[])) + 1])$$,
  'a position past the batch row''s last item gives nothing');

select is_empty(
  $$select 1 from awa._ready_at(array[(select ready_slot from pos limit 1) + 1], array[(select lane_id from pos limit 1)],
                                array[(select lane_seq from pos where job_id = (select ids[1] from ids))])$$,
  'the same position in another slot gives nothing');

select * from finish();
rollback;
