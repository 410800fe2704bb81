-- bulk_retry_jobs runs the failed jobs of a kind again from attempt 0 (newest
-- first, up to the limit), leaves other kinds alone, and refuses no filter,
-- a bad limit or a state with nothing to retry, writing nothing.
begin;
select plan(8);

create function pg_temp.failed(p_kind text) returns bigint language sql as $$
  select f.job_id from awa_test.claim_one(p_kind, '{}', '{"queue": "rq", "max_attempts": 1}', now()) as c,
    awa.fail_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id], array['boom']) as f
$$;
create temp table f as select pg_temp.failed('bulk.a') as id union all select pg_temp.failed('bulk.a') union all select pg_temp.failed('bulk.b');

select results_eq(
  $$select job_id, outcome, state from awa.bulk_retry_jobs(p_kind => 'bulk.a', p_limit => 10)$$,
  $$select id, 'applied'::text, 'available'::awa.job_state from f where id < (select max(id) from f) order by id desc$$,
  'the failed bulk.a jobs are available again');
select results_eq(
  $$select x.kind, x.state, x.attempt from f, awa.jobs x where x.id = f.id order by x.id$$,
  $$values ('bulk.a'::text, 'available'::awa.job_state, 0), ('bulk.a', 'available', 0), ('bulk.b', 'failed', 1)$$,
  'from attempt 0; the bulk.b job stays failed');
select * from awa_test.raises_writing_nothing($$select * from awa.bulk_retry_jobs()$$, 'AW010',
  'awa: bulk_retry_jobs needs a filter (states, queue, kind or tag)', 'no filter raises AW010');
select * from awa_test.raises_writing_nothing($$select * from awa.bulk_retry_jobs(p_kind => 'bulk.b', p_limit => 10001)$$, 'AW010',
  'awa: limit must be between 1 and 10000, got 10001', 'a limit over 10000 raises AW010');
select * from awa_test.raises_writing_nothing($$select * from awa.bulk_retry_jobs(array['running']::awa.job_state[])$$, 'AW010',
  'awa: bulk_retry_jobs retries failed, cancelled, scheduled or retryable jobs only, got states {running}',
  'a state with nothing to retry raises AW010');

select * from finish();
rollback;
