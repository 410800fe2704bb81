-- One call presenting the receipts of fifty claim batches (one materialized
-- test per batch in awa._close_claims): some already closed by a cancel or by
-- an earlier complete, some repeated, and five batches presented only through
-- a bad receipt (another item's job, a wrong run lease, an item past the
-- batch's size, a batch that does not exist, a wrong claim slot). Every open
-- receipt presented correctly is applied exactly once, at its first
-- occurrence; nothing else is; the closures written cover exactly those.
begin;
select plan(5);

select count(*) from awa.insert_jobs(array_fill('k'::text, array[100]), null,
                                     array_fill('{"queue": "fifty"}'::jsonb, array[100]));
create temp table c (g int, item int, id bigint, run_lease bigint, claim_slot int, receipt_id bigint);
do $$
begin
  for g in 1 .. 50 loop
    insert into c select g, awa._receipt_item(r.receipt_id), r.id, r.run_lease, r.claim_slot, r.receipt_id
    from awa.claim_ready_runtime('fifty', 2) as r;
  end loop;
end $$;
select is((select count(distinct awa._receipt_batch_id(receipt_id)) || '/' || count(*) from c), '50/100',
          'fifty claims of two are fifty batches of two (fixture)');

-- Batches 1-5: item 1 cancelled by an operator; batches 6-10: item 2 completed.
select count(*) from c, awa.cancel_job(c.id) where g <= 5 and item = 1;
select count(*) from awa.complete_jobs(array(select id from c where g between 6 and 10 and item = 2),
                                       array(select run_lease from c where g between 6 and 10 and item = 2),
                                       array(select claim_slot from c where g between 6 and 10 and item = 2),
                                       array(select receipt_id from c where g between 6 and 10 and item = 2));

create temp table p (ord serial, id bigint, run_lease bigint, claim_slot int, receipt_id bigint, applies boolean);
-- Batches 1-40 in reverse batch order, item 2 first; then batches 11-20 again.
insert into p (id, run_lease, claim_slot, receipt_id, applies)
select id, run_lease, claim_slot, receipt_id, not ((g <= 5 and item = 1) or (g between 6 and 10 and item = 2))
from c where g <= 40 order by g desc, item desc;
insert into p (id, run_lease, claim_slot, receipt_id, applies)
select id, run_lease, claim_slot, receipt_id, false from c where g between 11 and 20 order by g, item;
-- Batches 41-45, item 1 only, each wrong in one way; batches 46-50 not presented.
insert into p (id, run_lease, claim_slot, receipt_id, applies)
select case when g = 41 then (select x.id from c x where x.g = 41 and x.item = 2) else id end,
       case when g = 42 then run_lease + 1 else run_lease end,
       case when g = 45 then claim_slot + 1 else claim_slot end,
       case when g = 43 then receipt_id + 2
            when g = 44 then awa._receipt_id((select max(awa._receipt_batch_id(receipt_id)) + 1000 from c), 1)
            else receipt_id end,
       false
from c where g between 41 and 45 and item = 1 order by g;

create temp table r as
select * from awa_test.close_claims(array(select id from p order by ord), array(select run_lease from p order by ord),
                                array(select claim_slot from p order by ord), array(select receipt_id from p order by ord),
                                'complete', now());

select is((select count(*) from r), 70::bigint, 'seventy receipts are applied: 80 of batches 1-40 less 10 closed before');
select results_eq('select ord, job_id, run_lease, receipt_id from r order by ord',
                  'select ord, id, run_lease, receipt_id from p where applies order by ord',
                  'exactly the open, correctly presented receipts are applied, each at its first occurrence, in call order');
select is((select count(*) from awa._open_receipts o join c on c.receipt_id = o.receipt_id and c.claim_slot = o.claim_slot where c.g <= 40),
          0::bigint, 'no receipt of batches 1-40 is left open');
select is((select count(*) from awa._open_receipts o join c on c.receipt_id = o.receipt_id and c.claim_slot = o.claim_slot where c.g > 40),
          20::bigint, 'every receipt of batches 41-50 is still open (the bad receipts closed nothing)');

select * from finish();
rollback;
