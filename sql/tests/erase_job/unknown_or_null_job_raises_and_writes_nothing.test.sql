-- erase_job of an id that does not exist raises AW020; a NULL id AW010;
-- neither writes anything.
begin;
select plan(4);

select * from awa.insert_job('erase.k', '{"secret": 1}', '{"queue": "eu"}');

select * from awa_test.raises_writing_nothing($$select * from awa.erase_job(-42)$$, 'AW020', 'awa: job -42 not found',
                                              'an unknown job id raises AW020 naming it');
select * from awa_test.raises_writing_nothing($$select * from awa.erase_job(null)$$, 'AW010', 'awa: job_id must not be null',
                                              'a NULL job id raises AW010');

select * from finish();
rollback;
