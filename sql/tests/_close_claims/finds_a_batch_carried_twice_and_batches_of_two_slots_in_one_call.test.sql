-- A long attempt's batch is carried forward by two prunes (issued in slot 0,
-- carried to slot 7, then on to slot 6) with one item closed before each
-- carry, so its closures are the 'carried' copies only. One call then
-- presents its three receipts together with a batch claimed before a
-- rotation and one claimed after it (two claim slots): the issued-slot probe
-- finds the two fresh batches, the other-slot path finds the carried one, and
-- only its last item is applied there: the items closed before the carries
-- stay closed.
begin;
select plan(6);

select * from awa.insert_jobs(array['l', 'l', 'l'], null, array_fill('{"queue": "cr"}'::jsonb, array[3]));
create temp table c as select 'long'::text as tag, * from awa.claim_ready_runtime('cr', 3);
select * from awa.complete_jobs(array(select id from c order by receipt_id limit 1),
                                array(select run_lease from c order by receipt_id limit 1),
                                array(select claim_slot from c order by receipt_id limit 1),
                                array(select receipt_id from c order by receipt_id limit 1));
select awa_test.turn('claim', 7);
select * from awa.prune_ring('claim');
select * from awa.complete_jobs(array(select id from c order by receipt_id offset 1 limit 1),
                                array(select run_lease from c order by receipt_id offset 1 limit 1),
                                array(select claim_slot from c order by receipt_id offset 1 limit 1),
                                array(select receipt_id from c order by receipt_id offset 1 limit 1));
select awa_test.turn('claim', 8, '_turn', true);
select is((select claim_slot || '<-' || issued_slot from awa.claim_batches where queue = 'cr'), '6<-0',
          'the long batch, issued in slot 0, was carried twice and is now in slot 6 (fixture)');

select * from awa.insert_jobs(array['a', 'a', 'b', 'b'], null, array_fill('{"queue": "cr"}'::jsonb, array[4]));
insert into c select 'before', * from awa.claim_ready_runtime('cr', 2);
select awa.rotate_ring('claim', now());
insert into c select 'after', * from awa.claim_ready_runtime('cr', 2);
select is((select count(distinct claim_slot) from c where tag <> 'long'), 2::bigint,
          'the two fresh batches were claimed in two claim slots (fixture)');

create temp table r as
select * from awa_test.close_claims(array(select id from c order by tag, receipt_id desc), array(select run_lease from c order by tag, receipt_id desc),
                                array(select claim_slot from c order by tag, receipt_id desc), array(select receipt_id from c order by tag, receipt_id desc),
                                'complete', now());
select is((select count(*) from r), 5::bigint, 'five receipts are applied: four fresh and the carried batch''s last item');
select is((select array_agg(r.receipt_id order by r.receipt_id) from r join c using (receipt_id) where c.tag = 'long'),
          (select array_agg(receipt_id order by receipt_id) from (select receipt_id from c where tag = 'long' order by receipt_id offset 2) x),
          'of the carried batch only the item open across both carries is applied');
select is((select array_agg(distinct r.claim_slot) from r join c using (receipt_id) where c.tag = 'long'), array[6],
          'its closure goes to the slot the batch is in now');
select is((select count(*) from awa._open_receipts where queue = 'cr'), 0::bigint, 'no receipt of the queue is left open');

select * from finish();
rollback;
