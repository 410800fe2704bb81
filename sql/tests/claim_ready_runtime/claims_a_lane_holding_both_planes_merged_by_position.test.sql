-- A lane holding per-row ready rows (awa.ready_entries) and batch rows
-- (awa.ready_batches) is claimed in position order across both: a claim
-- starts in a batch row's middle where the last one stopped, takes each job
-- once, with its own values (item arrays or the row's scalars), run_lease and
-- attempt 1, and its claim batch names the lanes and positions it took.
begin;
select plan(9);

create temp table ids (tag text, id bigint);
insert into ids select 'r1', (awa.insert_job('mp.k', '{"n": "r1"}', '{"queue": "mp"}')).id;
insert into ids select 'b' || k, b.id
from unnest(awa_test.batch_row(array['mp.k', 'mp.other', 'mp.k'],
                               array['{"n": "b1"}', '{"n": "b2"}', '{"n": "b3"}']::jsonb[],
                               array['{"queue": "mp", "tags": ["t"]}', '{"queue": "mp", "metadata": {"m": 2}}',
                                     '{"queue": "mp", "max_attempts": 3}']::jsonb[])) with ordinality as b (id, k);
insert into ids select 'r' || (k + 1), j.id
from awa.insert_jobs(array['mp.k', 'mp.k'], array['{"n": "r2"}', '{"n": "r3"}']::jsonb[],
                     array['{"queue": "mp"}', '{"queue": "mp"}']::jsonb[]) with ordinality as j (id, state, queue, priority, kind, run_at, k);
insert into ids select 'c' || k, b.id
from unnest(awa_test.batch_row(array['mp.k', 'mp.k'], array['{"n": "c1"}', '{"n": "c2"}']::jsonb[],
                               array['{"queue": "mp"}', '{"queue": "mp"}']::jsonb[])) with ordinality as b (id, k);
select is((select count(distinct lane_id)::int
           from (select lane_id from awa.ready_entries where queue = 'mp'
                 union all select lane_id from awa.ready_batches where queue = 'mp') as l), 1,
          'fixture: one lane holds both planes');

create temp table c1 as select * from awa.claim_ready_runtime('mp', 2);
create temp table c2 as select * from awa.claim_ready_runtime('mp', 1);
create temp table c3 as select * from awa.claim_ready_runtime('mp', 3);
create temp table c4 as select * from awa.claim_ready_runtime('mp', 10);
select results_eq($$select args ->> 'n' from c1$$, $$values ('r1'), ('b1')$$,
                  'the first claim takes the per-row job, then the batch row''s first item');
select results_eq($$select args ->> 'n' from c2$$, $$values ('b2')$$,
                  'the next starts in the row''s middle');
select results_eq($$select args ->> 'n' from c3$$, $$values ('b3'), ('r2'), ('r3')$$,
                  'then the row''s last item and the per-row jobs after it');
select results_eq($$select args ->> 'n' from c4$$, $$values ('c1'), ('c2')$$,
                  'then the second batch row; nothing is left');
select is((select count(*)::int from awa.claim_ready_runtime('mp', 10)), 0, 'and nothing is claimed twice');

select results_eq(
  $$select i.tag, c.id, c.kind, c.tags, c.metadata, c.max_attempts, c.run_lease, c.attempt, c.errors, c.run_at = c.created_at
    from (select * from c1 union all select * from c2 union all select * from c3) as c join ids i using (id)
    where i.tag like 'b%' order by c.id$$,
  $$select i.tag, i.id, x.kind, x.tags, x.metadata::jsonb, x.max_attempts, 1::bigint, 1, null::jsonb, true
    from ids i join (values ('b1', 'mp.k', '{t}'::text[], '{}', 25), ('b2', 'mp.other', '{}', '{"m": 2}', 25),
                            ('b3', 'mp.k', '{}', '{}', 3)) as x (tag, kind, tags, metadata, max_attempts) using (tag)
    order by i.id$$,
  'batch items come back with their ids, own kind, tags, metadata and max_attempts, run_lease 1, attempt 1');

select is((select array_agg(u.id order by b.batch_id, u.k)
           from awa.claim_batches b cross join lateral unnest(b.job_ids) with ordinality as u (id, k)
           where b.queue = 'mp'),
          (select array_agg(id order by array_position(array['r1', 'b1', 'b2', 'b3', 'r2', 'r3', 'c1', 'c2'], tag)) from ids),
          'the claim batches hold the jobs in position order');
select is((select array_agg(u.seq - r.first_seq order by u.seq)
           from awa.claim_batches b cross join lateral unnest(b.job_ids, b.lane_seqs) as u (id, seq)
           join awa.ready_batches r on r.queue = 'mp' and u.id between r.first_id and r.first_id + r.n - 1
           where b.queue = 'mp'),
          array[0, 1, 2, 0, 1]::bigint[],
          'each batch item''s position is its row''s first_seq + k - 1');

select * from finish();
rollback;
