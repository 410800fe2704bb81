-- awa.queue_limits() returns the rate limit, max_depth and per-key
-- concurrency of each queue that has one of them, by queue name; a queue
-- with other options only (aging) or none has no row; given a queue, only
-- its row; a limit removed is gone from the row.
begin;
select plan(5);

select * from awa.configure_queue('fc_b', '{"rate_limit": {"per_second": 2.5, "burst": 4}, "max_depth": 100}');
select * from awa.configure_queue('fc_a', '{"concurrency": {"key": "args.tenant", "limit": 3, "limits": {"acme": 9}}}');
select * from awa.configure_queue('fc_c', '{"aging_seconds": 60}');

select results_eq($$select queue, rate_per_second, rate_burst, max_depth, concurrency_key, concurrency_limit, concurrency_limits
                    from awa.queue_limits() where queue like 'fc\_%'$$,
  $$values ('fc_a', null::float8, null::int, null::int, 'args.tenant', 3, '{"acme": 9}'::jsonb),
           ('fc_b', 2.5::float8, 4, 100, null, null, null)$$,
  'each queue with a limit, by name, with its options; a queue with aging only has none');
select results_eq($$select queue from awa.queue_limits('fc_b')$$, $$values ('fc_b')$$, 'given a queue: its row only');
select is_empty($$select * from awa.queue_limits('fc_c')$$, 'a queue without a limit: no row');
select is_empty($$select * from awa.queue_limits('nowhere')$$, 'an unknown queue: no row');

select * from awa.configure_queue('fc_b', '{"rate_limit": null}');
select results_eq($$select rate_per_second, max_depth from awa.queue_limits('fc_b')$$, $$values (null::float8, 100)$$,
  'a removed limit is gone, the others stay');

select * from finish();
rollback;
