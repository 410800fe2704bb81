-- configure_queue refuses a rate_limit that is not an object (AW005), one
-- without per_second or with a per_second or burst of the wrong type (AW005),
-- an unknown rate_limit key (AW004), and per_second or burst out of range
-- (AW006), writing nothing.
begin;
select plan(16);

select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"rate_limit": 5}')$$,
  'AW005', 'awa: opts.rate_limit must be an object or null, got 5', 'a number rate_limit raises AW005');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"rate_limit": {"burst": 2}}')$$,
  'AW005', 'awa: opts.rate_limit needs per_second, got {"burst": 2}', 'a rate_limit without per_second raises AW005');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"rate_limit": {"per_second": "1"}}')$$,
  'AW005', 'awa: opts.rate_limit.per_second must be a number, got "1"', 'a string per_second raises AW005');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"rate_limit": {"per_second": 1, "burst": 1.5}}')$$,
  'AW005', 'awa: opts.rate_limit.burst must be an integer, got 1.5', 'a fractional burst raises AW005');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"rate_limit": {"per_second": 1, "every": 2}}')$$,
  'AW004', 'awa: unknown queue option ''rate_limit.every''', 'an unknown rate_limit key raises AW004');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"rate_limit": {"per_second": 0}}')$$,
  'AW006', 'awa: opts.rate_limit.per_second must be above 0 and at most 1000000, got 0', 'per_second 0 raises AW006');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"rate_limit": {"per_second": 1, "burst": 0}}')$$,
  'AW006', 'awa: opts.rate_limit.burst must be between 1 and 1000000, got 0', 'burst 0 raises AW006');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"rate_limit": {"per_second": 1, "burst": 1000001}}')$$,
  'AW006', 'awa: opts.rate_limit.burst must be between 1 and 1000000, got 1000001', 'a burst over 1000000 raises AW006');

select * from finish();
rollback;
