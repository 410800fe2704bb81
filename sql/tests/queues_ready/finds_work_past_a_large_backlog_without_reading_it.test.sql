-- With a backlog of 20,000 jobs above the claim cursor and 1,000 claimed
-- rows below it, awa.queues_ready and awa.queue_pending find the first row
-- above the cursor by the lane index in order: each reads a handful of
-- ready_entries entries, not the backlog. The slow shape (EXISTS over the
-- partitions, planned as a bitmap scan that collects every row past the
-- cursor first, or a sequential scan from the lane's first row) reads tens
-- of thousands: 21-55 ms per poll with a 1M backlog.
begin;
select plan(4);

select count(*) from generate_series(1, 3) g,
  awa.insert_jobs(array_fill('k'::text, array[7000]), null, array_fill('{"queue": "qr_big"}'::jsonb, array[7000]));
select count(*) from awa.claim_ready_runtime('qr_big', 1000);

-- awa_test.ready_reads: the ready entries this transaction has read so far.
create temp table r0 as select awa_test.ready_reads() as n;
select results_eq($$select queue, ready from awa.queues_ready(array['qr_big'])$$,
                  $$values ('qr_big'::text, true)$$, 'the queue with a backlog is ready');
select cmp_ok(awa_test.ready_reads() - (select n from r0), '<', 200::bigint,
              'queues_ready read a handful of ready entries, not the 20,000 of the backlog');

update r0 set n = awa_test.ready_reads();
select results_eq($$select pending, ready from awa.queue_pending('qr_big')$$,
                  $$values (true, true)$$, 'queue_pending: pending and ready');
select cmp_ok(awa_test.ready_reads() - (select n from r0), '<', 200::bigint,
              'queue_pending read a handful of ready entries, not the 20,000 of the backlog');

select * from finish();
rollback;
