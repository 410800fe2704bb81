-- bulk_cancel_jobs refuses, writing nothing: no filter at all, a limit
-- outside 1..10000, a finished state (nothing to cancel).
begin;
select plan(6);

select * from awa.insert_job('bulk.k', '{}', '{"queue": "bq"}');
select * from awa_test.raises_writing_nothing($$select * from awa.bulk_cancel_jobs()$$, 'AW010',
  'awa: bulk_cancel_jobs needs a filter (states, queue, kind or tag)', 'no filter raises AW010');
select * from awa_test.raises_writing_nothing($$select * from awa.bulk_cancel_jobs(p_queue => 'bq', p_limit => 0)$$, 'AW010',
  'awa: limit must be between 1 and 10000, got 0', 'a limit of 0 raises AW010');
select * from awa_test.raises_writing_nothing($$select * from awa.bulk_cancel_jobs(array['completed']::awa.job_state[])$$, 'AW010',
  'awa: bulk_cancel_jobs cancels unfinished jobs only, got states {completed}', 'a finished state raises AW010');

select * from finish();
rollback;
