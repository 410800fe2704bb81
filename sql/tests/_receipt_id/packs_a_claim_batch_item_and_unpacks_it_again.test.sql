-- A receipt packs (batch_id, item): batch_id * 1024 + item - 1, item 1..1024.
-- awa._receipt_batch_id and awa._receipt_item invert it for every item,
-- awa._batch_receipts is the range of a batch's first items, and a claim's
-- receipts are exactly these. The functions are inlined: a closure probe with
-- them still uses the closures' GiST index.
begin;
select plan(6);

select is(awa._receipt_id(5, 1), 5120::bigint, 'item 1 of batch 5 is receipt 5120');
select is_empty(
  $$select k from generate_series(1, 1024) as k
    where awa._receipt_batch_id(awa._receipt_id(77, k)) <> 77 or awa._receipt_item(awa._receipt_id(77, k)) <> k$$,
  'batch id and item come back from each of a batch''s 1024 receipts');
select is(awa._batch_receipts(5, 3), int8range(5120, 5123), 'a batch of 3 holds receipts 5120 .. 5122');
select is(awa._receipt_batch_id(awa._receipt_id(5, 1024) + 1), 6::bigint, 'the receipt after item 1024 belongs to the next batch');

select * from awa.insert_jobs(array['a', 'b'], null, array_fill('{"queue": "rc"}'::jsonb, array[2]));
create temp table got as select row_number() over () as ord, * from awa.claim_ready_runtime('rc', 2, null, now());
select results_eq(
  $$select g.receipt_id from got g order by g.ord$$,
  $$select awa._receipt_id(b.batch_id, k) from awa.claim_batches b, generate_subscripts(b.job_ids, 1) as k
    where b.queue = 'rc' order by k$$,
  'a claim hands out the receipts of its batch''s items, in order');

create temp table plan_text (line text);
do $$
declare l text;
begin
  set local enable_seqscan = off;
  for l in execute $q$explain select 1 from awa.claim_closures c where c.receipts @> awa._receipt_id(5, 2)$q$ loop
    insert into plan_text values (l);
  end loop;
end $$;
select ok((select bool_or(line ~ 'Index Cond: \(receipts @> ''5121''::bigint\)') from plan_text),
          'a closure probe by awa._receipt_id is folded and uses the GiST index');

select * from finish();
rollback;
