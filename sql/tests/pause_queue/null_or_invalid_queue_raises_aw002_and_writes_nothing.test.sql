-- pause_queue and resume_queue refuse a NULL queue or a name no queue can
-- have with AW002, writing nothing.
begin;
select plan(8);

select * from awa_test.raises_writing_nothing($$select * from awa.pause_queue(null)$$, 'AW002',
  'awa: queue must not be null', 'pause_queue of NULL raises AW002');
select * from awa_test.raises_writing_nothing($$select * from awa.pause_queue('no spaces')$$, 'AW002',
  'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''no spaces''', 'pause_queue of a bad name raises AW002');
select * from awa_test.raises_writing_nothing($$select * from awa.resume_queue(null)$$, 'AW002',
  'awa: queue must not be null', 'resume_queue of NULL raises AW002');
select * from awa_test.raises_writing_nothing($$select * from awa.resume_queue('')$$, 'AW002',
  'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''''', 'resume_queue of an empty name raises AW002');

select * from finish();
rollback;
