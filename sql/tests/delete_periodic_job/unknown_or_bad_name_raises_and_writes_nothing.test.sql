-- delete_periodic_job of a name no schedule has raises AW051, of a name no
-- schedule can have (NULL, empty, a space, a slash) AW050; nothing is written.
begin;
select plan(10);

select awa.upsert_periodic_job('kept', '@hourly', 'k');
select t.* from (values
  ($$select * from awa.delete_periodic_job('missing')$$, 'AW051', 'awa: no periodic job named ''missing''',
   'deleting an unknown schedule raises AW051', null),
  ($$select * from awa.delete_periodic_job(null)$$, 'AW050',
   'awa: periodic job name must be 1 to 100 characters of [A-Za-z0-9_.:-], got null', 'deleting a NULL name raises AW050', null),
  ($$select * from awa.delete_periodic_job('')$$, 'AW050',
   'awa: periodic job name must be 1 to 100 characters of [A-Za-z0-9_.:-], got ''''', 'deleting an empty name raises AW050', null),
  ($$select * from awa.delete_periodic_job('two words')$$, 'AW050',
   'awa: periodic job name must be 1 to 100 characters of [A-Za-z0-9_.:-], got ''two words''', 'deleting a name with a space raises AW050', null),
  ($$select * from awa.delete_periodic_job('a/b')$$, 'AW050',
   'awa: periodic job name must be 1 to 100 characters of [A-Za-z0-9_.:-], got ''a/b''', 'deleting a name with a slash raises AW050', null)
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;

select * from finish();
rollback;
