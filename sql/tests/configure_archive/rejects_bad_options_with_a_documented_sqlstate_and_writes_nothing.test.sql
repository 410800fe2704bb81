-- Bad input raises the documented SQLSTATE and writes nothing: a bad queue
-- name (AW002), an unknown key (AW004), a wrong type (AW005), a retention out
-- of range (AW006), an export function set for a queue or naming no function
-- of the hook's signature (AW010).
begin;
select plan(14);

select * from awa_test.raises_writing_nothing($$select * from awa.configure_archive('{}', 'bad queue')$$,
  'AW002', null, 'a bad queue name raises AW002');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_archive('{"completed_seconds": 60, "keep": 1}')$$,
  'AW004', 'awa: unknown archive option ''keep''', 'an unknown key raises AW004');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_archive('{"completed_seconds": "1 day"}')$$,
  'AW005', 'awa: opts.completed_seconds must be an integer, got "1 day"', 'a retention that is not an integer raises AW005');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_archive('{"failed_seconds": -1}')$$,
  'AW006', 'awa: opts.failed_seconds must be between 0 and 315360000, got -1', 'a negative retention raises AW006');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_archive('{"completed_seconds": null}')$$,
  'AW005', 'awa: opts.completed_seconds must be an integer, got null', 'null for the install''s retention raises AW005');
select * from awa_test.raises_writing_nothing(
  $$select * from awa.configure_archive('{"export_function": "pg_catalog.now"}', 'mail')$$,
  'AW010', 'awa: export_function is set for the install, not for queue ''mail''', 'an export function for a queue raises AW010');
select * from awa_test.raises_writing_nothing(
  $$select * from awa.configure_archive('{"export_function": "pg_catalog.now"}')$$,
  'AW010', 'awa: export_function ''pg_catalog.now'' names no function (timestamptz, timestamptz, regclass)',
  'an export function of another signature raises AW010');

select * from finish();
rollback;
