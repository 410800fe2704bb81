-- awa.key_attempts keeps one row per key and claim batch, not per job: a
-- claim of three jobs of a key writes one row listing their items in the
-- batch (weights NULL: all weigh 1; a heavier job's weights listed); a row
-- with an attempt still open stays and counts only its open ones; once all
-- its attempts are closed the key's next claim deletes it.
begin;
select plan(8);

select * from awa.configure_queue('bq', '{"concurrency": {"key": "args.t", "limit": 4}}');
select count(*) from awa.insert_jobs(array_fill('k'::text, array[3]), array_fill('{"t":"a"}'::jsonb, array[3]),
                                     array_fill('{"queue":"bq"}'::jsonb, array[3]));

create temp table c1 as select * from awa.claim_ready_runtime('bq', 10);
select is((select count(*) from c1), 3::bigint, 'a claim takes the key''s three jobs');
select results_eq($$select items, weights, batch_id = (select distinct awa._receipt_batch_id(receipt_id) from c1)
                    from awa.key_attempts where queue = 'bq' and key = 'a'$$,
  $$values ('{1,2,3}'::int[], null::int[], true)$$,
  'one row for the three, naming their items in the claim batch, no weights when all weigh 1');

create temp table done as select * from c1 order by id limit 2;
select count(*) from awa.complete_jobs((select array_agg(id) from done), (select array_agg(run_lease) from done),
                                       (select array_agg(claim_slot) from done), (select array_agg(receipt_id) from done));
select * from awa.insert_job('k', '{"t":"a"}', '{"queue":"bq", "weight": 2}');
select * from awa.insert_job('k', '{"t":"a"}', '{"queue":"bq"}');
create temp table c2 as select * from awa.claim_ready_runtime('bq', 10);
select is((select count(*) from c2), 2::bigint,
  'two of the first batch closed: the key uses 1 of 4, so a job of weight 2 and one of weight 1 fit');
select is((select count(*) from awa.key_attempts where queue = 'bq' and key = 'a'), 2::bigint,
  'the first batch''s row stays (one attempt open) beside the new batch''s');
select results_eq($$select weights from awa.key_attempts where queue = 'bq' and batch_id = (select distinct awa._receipt_batch_id(receipt_id) from c2)$$,
  $$values ('{2,1}'::int[])$$, 'the new row lists the weights when one is not 1');
select is((select count(*) from awa.claim_ready_runtime('bq', 10)), 0::bigint, 'the key is at its limit (1 + 2 + 1)');

create temp table last as select * from c1 order by id desc limit 1;
select count(*) from awa.complete_jobs((select array_agg(id) from last), (select array_agg(run_lease) from last),
                                       (select array_agg(claim_slot) from last), (select array_agg(receipt_id) from last));
select * from awa.insert_job('k', '{"t":"a"}', '{"queue":"bq"}');
select is((select count(*) from awa.claim_ready_runtime('bq', 10)), 1::bigint,
  'the first batch''s last attempt closed: one slot free');
select is((select count(*) from awa.key_attempts where queue = 'bq' and key = 'a'
           and batch_id = (select distinct awa._receipt_batch_id(receipt_id) from c1)), 0::bigint,
  'and that claim deleted the first batch''s row, all its attempts closed');

select * from finish();
rollback;
