-- A claim batch holds up to 1024 items, receipt ids batch_id * 1024 + 0 ..
-- batch_id * 1024 + 1023. The closures probe of awa._close_claims merges the
-- closures overlapping the batch's receipt range: an off-by-one at either end
-- would reopen item 1 or item 1024 (or close the next batch's item 1). The
-- two ends are closed first, then the whole batch is presented: the 1022
-- items between are applied once, the ends are stale, and a third call finds
-- every item stale.
begin;
select plan(7);

select count(*) from awa.insert_jobs(array_fill('k'::text, array[1025]), null,
                                     array_fill('{"queue": "full"}'::jsonb, array[1025]));
create temp table c as select * from awa.claim_ready_runtime('full', 1024);
create temp table n as select * from awa.claim_ready_runtime('full', 1);
create temp table ends as select * from c where awa._receipt_item(receipt_id) in (1, 1024);

select is((select count(distinct awa._receipt_batch_id(receipt_id)) || '/' || count(*) from c), '1/1024',
          'one claim of 1024 jobs is one batch of 1024 items (fixture)');
select is((select awa._receipt_batch_id(n.receipt_id) - awa._receipt_batch_id(min(c.receipt_id)) from c, n group by n.receipt_id), 1::bigint,
          'the next claim''s batch is the next batch id, its item 1 the receipt right after item 1024 (fixture)');

select is((select array_agg(r.job_id order by r.job_id)
           from awa_test.close_claims(array(select id from ends), array(select run_lease from ends),
                                  array(select claim_slot from ends), array(select receipt_id from ends),
                                  'complete', now()) as r),
          (select array_agg(id order by id) from ends),
          'items 1 and 1024 alone are applied');

create temp table r2 as
select * from awa_test.close_claims(array(select id from c), array(select run_lease from c),
                                array(select claim_slot from c), array(select receipt_id from c), 'complete', now());
select is((select count(*) || '/' || count(*) filter (where receipt_id in (select receipt_id from ends)) from r2), '1022/0',
          'presented again with the whole batch, the 1022 items between are applied and items 1 and 1024 not twice');
select ok(awa._claim_batch_closed((select claim_slot from ends limit 1), (select awa._receipt_batch_id(receipt_id) from ends limit 1), 1024),
          'after the whole batch was presented every one of its 1024 receipts is closed');
select is((select count(*) from awa_test.close_claims(array(select id from c), array(select run_lease from c),
                                                   array(select claim_slot from c), array(select receipt_id from c),
                                                   'complete', now())), 0::bigint,
          'a third presentation applies nothing');
select is((select count(*) from awa_test.close_claims(array(select id from n), array(select run_lease from n),
                                                   array(select claim_slot from n), array(select receipt_id from n),
                                                   'complete', now())), 1::bigint,
          'the next batch''s item 1, right after the closed range, is still open and applied');

select * from finish();
rollback;
