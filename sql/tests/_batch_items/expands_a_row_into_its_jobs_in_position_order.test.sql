-- awa._batch_items expands a batch-shaped ready row into ready rows: item k
-- is job first_id + k - 1 at position first_seq + k - 1, fresh (run_lease 0,
-- attempt 0, no errors); what the jobs share comes from the row's scalars,
-- what differs from the item arrays, and absent arrays give the defaults.
begin;
select plan(8);

create temp table ids as
select awa_test.batch_row(array['bi.a', 'bi.b', 'bi.a'],
                          array['{"n": 1}', '{"n": 2}', '{"n": 3}']::jsonb[],
                          array['{"queue": "bq", "priority": 3, "tags": ["x", "y"]}',
                                '{"queue": "bq", "priority": 3, "max_attempts": 7, "metadata": {"m": 1}}',
                                '{"queue": "bq", "priority": 3, "run_at": "2001-01-01T00:00:00Z"}']::jsonb[]) as ids;
create temp table b as select r from awa.ready_batches r where r.queue = 'bq';

select is((select count(*)::int from b), 1, 'one row holds the three jobs');
select is((select (r).kind is null and (r).item_kinds = array['bi.a', 'bi.b', 'bi.a'] from b), true,
          'kinds that differ are an item array, the scalar NULL');
select is((select (r).item_tags from b), '[["x", "y"], [], []]'::jsonb, 'tags, one array per item');

select results_eq(
  $$select e.job_id - (select ids[1] from ids), e.lane_seq - (select (r).first_seq from b), e.run_lease, e.attempt,
           e.kind, e.args, e.tags, e.metadata, e.max_attempts, e.priority::int, e.queue, e.errors
    from b cross join lateral awa._batch_items(b.r) as e$$,
  $$values (0::bigint, 0::bigint, 0::bigint, 0, 'bi.a'::text, '{"n": 1}'::jsonb, '{x,y}'::text[], '{}'::jsonb, 25, 3, 'bq'::text, null::jsonb),
           (1, 1, 0, 0, 'bi.b', '{"n": 2}', '{}', '{"m": 1}', 7, 3, 'bq', null),
           (2, 2, 0, 0, 'bi.a', '{"n": 3}', '{}', '{}', 25, 3, 'bq', null)$$,
  'every item, in position order, with its own values and the defaults');
select is((select array_agg(e.job_id order by e.lane_seq) from b cross join lateral awa._batch_items(b.r) as e),
          (select ids from ids), 'the ids are the ones batch_row returned');
select results_eq(
  $$select e.run_at = (r).created_at from b cross join lateral awa._batch_items(b.r) as e order by e.lane_seq$$,
  $$values (true), (true), (false)$$,
  'run_at is the row''s created_at unless the item has its own');
select results_eq(
  $$select e.job_id - (select ids[1] from ids) from b cross join lateral awa._batch_items(b.r, (r).first_seq, 1) as e$$,
  $$values (1::bigint)$$,
  'after a position, at most max items: the next one only');
select is_empty(
  $$select 1 from b cross join lateral awa._batch_items(b.r, (r).first_seq + 2, 10)$$,
  'after the last position, nothing');

select * from finish();
rollback;
