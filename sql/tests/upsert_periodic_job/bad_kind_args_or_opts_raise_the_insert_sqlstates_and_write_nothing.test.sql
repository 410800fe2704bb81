-- upsert_periodic_job checks the job as awa.insert_job would, with its
-- SQLSTATEs, so a schedule never fires a job the insert refuses; run_at is
-- no option of a periodic job (AW004). Nothing is written.
begin;
select plan(14);

select * from awa_test.raises_writing_nothing($$select * from awa.upsert_periodic_job('p', '@hourly', '')$$, 'AW001',
  'awa: kind must be 1 to 255 characters, got ''''', 'an empty kind raises AW001');
select * from awa_test.raises_writing_nothing($$select * from awa.upsert_periodic_job('p', '@hourly', 'k', '[1]')$$, 'AW003',
  'awa: args must be a JSON object, got [1]', 'args not an object raise AW003');
select * from awa_test.raises_writing_nothing($$select * from awa.upsert_periodic_job('p', '@hourly', 'k', '{}', '{"run_at": "2030-01-01T00:00:00Z"}')$$, 'AW004',
  'awa: opts.run_at is not an option of a periodic job: its fire time sets it', 'opts.run_at raises AW004');
select * from awa_test.raises_writing_nothing($$select * from awa.upsert_periodic_job('p', '@hourly', 'k', '{}', '{"queeu": "q"}')$$, 'AW004',
  'awa: unknown option ''queeu''', 'an unknown option raises AW004');
select * from awa_test.raises_writing_nothing($$select * from awa.upsert_periodic_job('p', '@hourly', 'k', '{}', '{"queue": "no spaces"}')$$, 'AW002',
  'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''no spaces''', 'a bad queue raises AW002');
select * from awa_test.raises_writing_nothing($$select * from awa.upsert_periodic_job('p', '@hourly', 'k', '{}', '{"priority": 9}')$$, 'AW006',
  'awa: opts.priority must be between 1 and 4, got 9', 'a priority out of range raises AW006');
select * from awa_test.raises_writing_nothing($$select * from awa.upsert_periodic_job('p', '@hourly', 'k', '{}', '"x"')$$, 'AW005',
  'awa: opts must be a JSON object, got "x"', 'opts not an object raise AW005');

select * from finish();
rollback;
