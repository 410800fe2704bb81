-- awa.get_job(NULL) raises AW010 (invalid_argument, docs/errors.md) and
-- writes nothing.
begin;
select plan(2);

select * from awa_test.raises_writing_nothing($$select * from awa.get_job(null)$$, 'AW010',
                                              'awa: job_id must not be null', 'a NULL id raises AW010');

select * from finish();
rollback;
