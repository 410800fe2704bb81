-- configure_queue refuses an aging_seconds of 0, a negative one or one over a
-- year (AW006) and one that is not an integer (AW005), writing nothing.
begin;
select plan(8);

select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"aging_seconds": 0}')$$,
  'AW006', 'awa: opts.aging_seconds must be between 1 and 31536000, got 0', 'aging_seconds 0 raises AW006');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"aging_seconds": -5}')$$,
  'AW006', 'awa: opts.aging_seconds must be between 1 and 31536000, got -5', 'a negative aging_seconds raises AW006');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"aging_seconds": 31536001}')$$,
  'AW006', 'awa: opts.aging_seconds must be between 1 and 31536000, got 31536001', 'over a year raises AW006');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"aging_seconds": "60"}')$$,
  'AW005', 'awa: opts.aging_seconds must be an integer or null, got "60"', 'a string raises AW005');

select * from finish();
rollback;
