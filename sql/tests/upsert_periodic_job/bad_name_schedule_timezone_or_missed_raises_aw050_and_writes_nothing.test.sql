-- upsert_periodic_job refuses a name, schedule, zone or missed policy it
-- cannot take with AW050 and writes nothing; SQL checks the spec's shape only
-- (5 fields, a descriptor, @every with a duration; no TZ= prefix).
begin;
select plan(20);

select * from awa_test.raises_writing_nothing($$select * from awa.upsert_periodic_job(null, '@hourly', 'k')$$, 'AW050',
  'awa: periodic job name must be 1 to 100 characters of [A-Za-z0-9_.:-], got null', 'a NULL name raises AW050');
select * from awa_test.raises_writing_nothing($$select * from awa.upsert_periodic_job('two words', '@hourly', 'k')$$, 'AW050',
  'awa: periodic job name must be 1 to 100 characters of [A-Za-z0-9_.:-], got ''two words''', 'a name with a space raises AW050');
select * from awa_test.raises_writing_nothing($$select * from awa.upsert_periodic_job(repeat('n', 101), '@hourly', 'k')$$, 'AW050',
  format('awa: periodic job name must be 1 to 100 characters of [A-Za-z0-9_.:-], got %L', repeat('n', 101)),
  'a name of 101 characters raises AW050');
select * from awa_test.raises_writing_nothing($$select * from awa.upsert_periodic_job('p', '* * * *', 'k')$$, 'AW050',
  'awa: schedule must be 5 cron fields (minute hour day-of-month month day-of-week) or a descriptor (@hourly, @daily, @weekly, @monthly, @yearly, @every <duration>), got ''* * * *''',
  'a spec of 4 fields raises AW050');
select * from awa_test.raises_writing_nothing($$select * from awa.upsert_periodic_job('p', '0 * * * * *', 'k')$$, 'AW050',
  'awa: schedule must be 5 cron fields (minute hour day-of-month month day-of-week) or a descriptor (@hourly, @daily, @weekly, @monthly, @yearly, @every <duration>), got ''0 * * * * *''',
  'a spec of 6 fields (seconds) raises AW050');
select * from awa_test.raises_writing_nothing($$select * from awa.upsert_periodic_job('p', '@every', 'k')$$, 'AW050',
  'awa: schedule must be 5 cron fields (minute hour day-of-month month day-of-week) or a descriptor (@hourly, @daily, @weekly, @monthly, @yearly, @every <duration>), got ''@every''',
  '@every without a duration raises AW050');
select * from awa_test.raises_writing_nothing($$select * from awa.upsert_periodic_job('p', null, 'k')$$, 'AW050',
  'awa: schedule must be 5 cron fields (minute hour day-of-month month day-of-week) or a descriptor (@hourly, @daily, @weekly, @monthly, @yearly, @every <duration>), got null',
  'a NULL schedule raises AW050');
select * from awa_test.raises_writing_nothing($$select * from awa.upsert_periodic_job('p', 'CRON_TZ=Europe/Paris 0 3 * * *', 'k')$$, 'AW050',
  'awa: schedule must not name a time zone (TZ=, CRON_TZ=): pass it as timezone, got ''CRON_TZ=Europe/Paris 0 3 * * *''',
  'a CRON_TZ= prefix raises AW050');
select * from awa_test.raises_writing_nothing($$select * from awa.upsert_periodic_job('p', '@hourly', 'k', p_timezone => 'Mars/Olympus')$$, 'AW050',
  'awa: timezone must be an IANA time zone name (pg_timezone_names), got ''Mars/Olympus''', 'an unknown zone raises AW050');
select * from awa_test.raises_writing_nothing($$select * from awa.upsert_periodic_job('p', '@hourly', 'k', p_missed => 'catch_up')$$, 'AW050',
  'awa: missed must be fire_once or skip, got ''catch_up''', 'an unknown missed policy raises AW050');

select * from finish();
rollback;
