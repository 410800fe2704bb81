-- On a keyed queue (concurrency key args.tenant, limit 2) a claim takes at
-- most 2 open attempts per key whatever it asks for, other keys and jobs
-- without a key alike; a key at its limit is skipped (its lane keeps its
-- jobs, in order) until one of its attempts closes: completed, or cancelled.
begin;
select plan(8);

select * from awa.configure_queue('kq', '{"concurrency": {"key": "args.tenant", "limit": 2}}');
select count(*) from awa.insert_jobs(array_fill('k'::text, array[5]), array_fill('{"tenant":"a"}'::jsonb, array[5]),
                                     array_fill('{"queue":"kq"}'::jsonb, array[5]));
select count(*) from awa.insert_jobs(array['k', 'k'], array['{"tenant":"b"}', '{}']::jsonb[],
                                     array['{"queue":"kq"}', '{"queue":"kq"}']::jsonb[]);

create temp table c1 as select * from awa.claim_ready_runtime('kq', 10);
select is((select count(*) from c1 where args ->> 'tenant' = 'a'), 2::bigint, 'a claim of 10 takes 2 jobs of key a');
select is((select count(*) from c1 where args ->> 'tenant' = 'b'), 1::bigint, 'and the job of key b');
select is((select count(*) from c1 where not args ? 'tenant'), 1::bigint, 'and the job without a key (no limit)');
select is((select count(*) from awa.claim_ready_runtime('kq', 10)), 0::bigint, 'a key at its limit is skipped');

create temp table ca as select * from c1 where args ->> 'tenant' = 'a' order by id limit 1;
select awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id]) from ca c;
select results_eq($$select id from awa.claim_ready_runtime('kq', 10)$$,
  $$select min(id) + 2 from c1 where args ->> 'tenant' = 'a'$$, 'a completed attempt frees one slot: the next job of the key, in order');

create temp table cb as select * from c1 where args ->> 'tenant' = 'a' order by id desc limit 1;
select awa.cancel_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id]) from cb c;
select is((select count(*) from awa.claim_ready_runtime('kq', 10)), 1::bigint, 'a cancelled attempt frees one slot');
select is((select count(*) from awa.claim_ready_runtime('kq', 10)), 0::bigint, 'and no more');
select results_eq($$select count(*), count(*) filter (where open) from awa_test.key_attempts('kq') where key = 'a'$$,
  $$values (2::bigint, 2::bigint)$$,
  'the key lists its 2 open attempts only (the batch whose attempts all closed is deleted)');

select * from finish();
rollback;
