-- A producer in another language may write metadata.flow_weight itself. Only
-- a JSON number with an integer value in 1..100000 is a weight (2.0 is 2);
-- a fraction (2.5 is not rounded to 3), a string ("5"), a negative number
-- or anything else counts as 1 against the key's limit, as the Go runtime
-- counts it against MaxWorkers (driver TestClaimedJobWeightAgreesWithTheClaim).
begin;
select plan(4);

select * from awa.configure_queue('wq', '{"concurrency": {"key": "args.t", "limit": 10}}');
select * from awa.insert_jobs(array_fill('k'::text, array[6]),
  array['{"t": "a"}', '{"t": "a"}', '{"t": "a"}', '{"t": "a"}', '{"t": "a"}', '{"t": "a"}']::jsonb[],
  array['{"queue": "wq", "metadata": {"flow_weight": 2.5}}', '{"queue": "wq", "metadata": {"flow_weight": "5"}}',
        '{"queue": "wq", "metadata": {"flow_weight": -4}}', '{"queue": "wq", "metadata": {"flow_weight": 1.5}}',
        '{"queue": "wq", "metadata": {"flow_weight": 99999.9999999999999}}',
        '{"queue": "wq", "metadata": {"flow_weight": 2.0}}']::jsonb[]);

create temp table c1 as select * from awa.claim_ready_runtime('wq', 10);
select is((select count(*) from c1), 6::bigint, 'weights 1+1+1+1+1+2 fit the limit of 10: all six run');
select results_eq($$select a.weight from awa_test.key_attempts('wq') a join c1 on c1.id = a.job_id order by a.job_id$$,
  $$values (1), (1), (1), (1), (1), (2)$$,
  'a fraction, a string, a negative number and a near-integer count 1; 2.0 counts 2');
select is((select sum(weight) from awa_test.key_attempts('wq') where key = 'a'), 7::bigint, 'the key uses 7 of 10');

select * from awa.insert_job('k', '{"t": "a"}', '{"queue": "wq", "metadata": {"flow_weight": 3.4}}');
select is((select count(*) from awa.claim_ready_runtime('wq', 10)), 1::bigint,
  'a weight of 3.4 counts 1, so it still fits the 3 left');

select * from finish();
rollback;
