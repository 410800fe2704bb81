-- Without retry_at (NULL array or NULL element) the job is retried after the
-- backoff: (attempt^4 + 1) seconds plus up to 10% jitter after p_now, always in
-- the future.
begin;
select plan(5);

select * from awa.insert_jobs(array['a', 'b'], null, array_fill('{"queue": "bo"}'::jsonb, array[2]));
create temp table c1 as select row_number() over () as ord, * from awa.claim_ready_runtime('bo', 2, null, '2030-01-01 12:00:00+00');

-- a: NULL retry_at array. b: an array whose element is NULL.
select * from awa.retry_jobs(array(select id from c1 where ord = 1), array(select run_lease from c1 where ord = 1),
  array(select claim_slot from c1 where ord = 1), array(select receipt_id from c1 where ord = 1), array['e'], null,
  '2030-01-01 12:00:00+00');
select * from awa.retry_jobs(array(select id from c1 where ord = 2), array(select run_lease from c1 where ord = 2),
  array(select claim_slot from c1 where ord = 2), array(select receipt_id from c1 where ord = 2), array['e'],
  array[null::timestamptz], '2030-01-01 12:00:00+00');

select ok((select bool_and(run_at > '2030-01-01 12:00:00+00') from awa.deferred_jobs where queue = 'bo'),
  'the backoff run_at is after p_now');
select ok((select bool_and(run_at between '2030-01-01 12:00:00+00'::timestamptz + interval '2 seconds'
                                     and '2030-01-01 12:00:00+00'::timestamptz + interval '2.2 seconds')
           from awa.deferred_jobs where queue = 'bo' and attempt = 1),
  'after attempt 1 the backoff is 1^4 + 1 = 2 s plus at most 10% jitter');
select is((select count(*) from awa.deferred_jobs where queue = 'bo' and state = 'retryable'), 2::bigint,
  'a NULL retry_at array and a NULL element both give a backoff retry');

-- Attempt 3: job c fails attempts 1 and 2 with an immediate retry_at, then
-- attempt 3 without one, so the backoff decides.
select * from awa.insert_job('c', '{}', '{"queue": "bo3"}');
do $$
declare c record;
begin
  for i in 1 .. 3 loop
    perform awa.promote_due_jobs(10, '2030-01-02 00:00:00+00');
    for c in select * from awa.claim_ready_runtime('bo3', 1, null, '2030-01-02 00:00:00+00') loop
      perform awa.retry_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id], array['e'],
                             case when c.attempt < 3 then array['2030-01-02 00:00:00+00'::timestamptz] end,
                             '2030-01-02 00:00:00+00');
    end loop;
  end loop;
end $$;
select is((select attempt from awa.deferred_jobs where queue = 'bo3'), 3,
  'job c has failed three attempts');
select ok((select run_at between '2030-01-02 00:00:00+00'::timestamptz + interval '82 seconds'
                             and '2030-01-02 00:00:00+00'::timestamptz + interval '90.2 seconds'
           from awa.deferred_jobs where queue = 'bo3'),
  'after attempt 3 the backoff is 3^4 + 1 = 82 s plus at most 10% jitter');

select * from finish();
rollback;
