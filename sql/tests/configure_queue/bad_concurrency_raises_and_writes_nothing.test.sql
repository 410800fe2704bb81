-- configure_queue refuses a concurrency that is not an object, lacks key or
-- limit, has a key path outside args.<path> / metadata.<path>, a limit or a
-- limits entry that is not an integer (AW005), an unknown key (AW004), or a
-- limit out of 1..100000 (AW006), writing nothing; null removes it and keeps
-- the queue keyed (its key lanes are still claimed).
begin;
select plan(18);

select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"concurrency": 5}')$$,
  'AW005', 'awa: opts.concurrency must be an object or null, got 5', 'a number concurrency raises AW005');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"concurrency": {"key": "args.t"}}')$$,
  'AW005', 'awa: opts.concurrency needs key and limit, got {"key": "args.t"}', 'a concurrency without limit raises AW005');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"concurrency": {"key": "tenant", "limit": 1}}')$$,
  'AW005', 'awa: opts.concurrency.key must be "args.<path>" or "metadata.<path>", got "tenant"', 'a key path outside args and metadata raises AW005');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"concurrency": {"key": "args.t", "limit": "2"}}')$$,
  'AW005', 'awa: opts.concurrency.limit must be an integer, got "2"', 'a string limit raises AW005');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"concurrency": {"key": "args.t", "limit": 2, "limits": {"a": 1.5}}}')$$,
  'AW005', 'awa: opts.concurrency.limits must be an object of integers, got {"a": 1.5}', 'a fractional override raises AW005');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"concurrency": {"key": "args.t", "limit": 2, "per": 1}}')$$,
  'AW004', 'awa: unknown queue option ''concurrency.per''', 'an unknown concurrency key raises AW004');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"concurrency": {"key": "args.t", "limit": 0}}')$$,
  'AW006', 'awa: opts.concurrency.limit must be between 1 and 100000, got 0', 'limit 0 raises AW006');
select * from awa_test.raises_writing_nothing($$select * from awa.configure_queue('q', '{"concurrency": {"key": "args.t", "limit": 2, "limits": {"a": 0}}}')$$,
  'AW006', 'awa: opts.concurrency.limits.a must be between 1 and 100000, got 0', 'an override of 0 raises AW006');

select * from awa.configure_queue('q', '{"concurrency": {"key": "args.t", "limit": 2}}');
select * from awa.configure_queue('q', '{"concurrency": null}');
select results_eq($$select concurrency_key, concurrency_limit, keyed from awa.queue_options where queue = 'q'$$,
  $$values (null::text, null::int, true)$$, 'null removes the key and limit; the queue stays keyed');
select is((select count(*) from awa.queue_options where queue = 'q' and concurrency_limits is null), 1::bigint,
  'and the overrides');

select * from finish();
rollback;
