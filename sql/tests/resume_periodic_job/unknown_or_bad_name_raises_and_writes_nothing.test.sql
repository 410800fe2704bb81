-- resume_periodic_job of a name no schedule has raises AW051, of a name no
-- schedule can have AW050; nothing is written.
begin;
select plan(4);

select * from awa_test.raises_writing_nothing($$select * from awa.resume_periodic_job('missing')$$, 'AW051',
  'awa: no periodic job named ''missing''', 'resuming an unknown schedule raises AW051');
select * from awa_test.raises_writing_nothing($$select * from awa.resume_periodic_job('a/b')$$, 'AW050',
  'awa: periodic job name must be 1 to 100 characters of [A-Za-z0-9_.:-], got ''a/b''', 'resuming a bad name raises AW050');

select * from finish();
rollback;
