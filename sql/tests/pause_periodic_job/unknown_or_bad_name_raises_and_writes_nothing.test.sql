-- pause_periodic_job of a name no schedule has raises AW051, of a name no
-- schedule can have AW050; nothing is written.
begin;
select plan(4);

select * from awa_test.raises_writing_nothing($$select * from awa.pause_periodic_job('missing')$$, 'AW051',
  'awa: no periodic job named ''missing''', 'pausing an unknown schedule raises AW051');
select * from awa_test.raises_writing_nothing($$select * from awa.pause_periodic_job(null)$$, 'AW050',
  'awa: periodic job name must be 1 to 100 characters of [A-Za-z0-9_.:-], got null', 'pausing a NULL name raises AW050');

select * from finish();
rollback;
