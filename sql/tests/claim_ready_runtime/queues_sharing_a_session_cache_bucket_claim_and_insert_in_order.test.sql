-- The session caches (the claim's cursor cache, awa._cursor_cache_key, and the
-- producer's lane cache) are one of 256 settings per cache, chosen by the
-- queue's hash, not one setting per queue: a session that works thousands of
-- queues creates at most 256 of each. Two queues that share a bucket evict each
-- other's entry; since an entry names its queue, neither ever uses the other's:
-- inserts and claims alternating between them keep each queue's order and
-- lose no job.
begin;
select plan(5);

select is((select count(distinct awa._cursor_cache_key('tenant_' || i))::int from generate_series(1, 5000) i), 256,
  '5,000 queues share 256 cursor-cache settings');

-- Two queue names in the same bucket.
create temp table pair as
select 'bucket_a'::text as a,
       (select 'bucket_b' || i from generate_series(1, 100000) i
        where awa._cursor_cache_key('bucket_b' || i) = awa._cursor_cache_key('bucket_a') limit 1) as b;
select isnt((select b from pair), null, 'a second queue name shares the first one''s bucket');

-- Inserts alternate between the two queues (each evicts the other's lane
-- cache entry), then claims alternate (each evicts the other's cursor entry).
create temp table ins as
select g, q, (awa.insert_job('k', jsonb_build_object('g', g), jsonb_build_object('queue', q))).id
from generate_series(1, 6) g, lateral (select case when g % 2 = 1 then a else b end as q from pair) x
order by g;
create temp table got (n int, q text, id bigint);
do $$
declare v_q text;
begin
  for i in 1 .. 6 loop
    v_q := (select case when i % 2 = 1 then a else b end from pair);
    insert into got select i, v_q, c.id from awa.claim_ready_runtime(v_q, 1, null, now()) c;
  end loop;
end $$;

select results_eq($$select id from got where q = (select a from pair) order by n$$,
                  $$select id from ins where q = (select a from pair) order by g$$,
                  'the first queue''s jobs are claimed once each, in insert order');
select results_eq($$select id from got where q = (select b from pair) order by n$$,
                  $$select id from ins where q = (select b from pair) order by g$$,
                  'and so are the second''s');
select is_empty($$select * from awa.claim_ready_runtime((select a from pair), 10, null, now())
                  union all select * from awa.claim_ready_runtime((select b from pair), 10, null, now())$$,
                'then both queues are empty');

select * from finish();
rollback;
