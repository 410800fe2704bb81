-- A NULL job id raises AW010 and writes nothing.
begin;
select plan(2);

select * from awa_test.raises_writing_nothing($$select * from awa.job_progress(null)$$, 'AW010',
  'awa: job_id must not be null', 'a NULL job_id raises AW010');

select * from finish();
rollback;
