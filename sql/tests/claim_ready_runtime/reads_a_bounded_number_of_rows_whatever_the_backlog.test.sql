-- Claim reads the lane index above the cursor with a LIMIT: claiming 10 jobs
-- from a 5,000-job backlog touches a handful of ready rows, not the backlog.
-- Measured with this transaction's own table statistics
-- (pg_stat_xact_user_tables), so a plan that scans or hashes the whole lane
-- fails here.
begin;
select plan(3);

select count(*) from awa.insert_jobs(array_fill('k'::text, array[5000]), null,
                                     array_fill('{"queue": "deep"}'::jsonb, array[5000]));
-- one tombstoned job inside the first batch: claim must still fill max
select * from awa.cancel_job((select min(id) + 3 from awa.jobs where queue = 'deep'));

select * from awa_test.claim_reads_within($$select count(*) from awa.claim_ready_runtime('deep', 10)$$, 10, 50,
  'a claim of 10 from a 5,000-job backlog returns 10 jobs, skipping the cancelled one',
  'the claim reads no ready rows by sequential scan',
  'the claim fetches at most a few dozen ready rows through the index');

select * from finish();
rollback;
