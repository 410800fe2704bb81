-- configure_queue rate_limit sets per_second and burst (burst defaults to
-- ceil(per_second)) and fills the queue's bucket; null removes both the
-- limit and the bucket; a key not given keeps the rate limit.
begin;
select plan(7);

select lives_ok($$select * from awa.configure_queue('rq', '{"rate_limit": {"per_second": 2.5, "burst": 4}}')$$,
  'a rate limit with per_second and burst is accepted');
select results_eq($$select rate_per_second, rate_burst from awa.queue_options where queue = 'rq'$$,
  $$values (2.5::float8, 4)$$, 'per_second and burst are kept in awa.queue_options');
select results_eq($$select tokens from awa.queue_rate_buckets where queue = 'rq'$$, $$values (4::float8)$$,
  'the bucket starts full (burst tokens)');
select * from awa.configure_queue('rq', '{"dlq": true}');
select results_eq($$select rate_per_second, rate_burst from awa.queue_options where queue = 'rq'$$,
  $$values (2.5::float8, 4)$$, 'another key keeps the rate limit');
select * from awa.configure_queue('rq2', '{"rate_limit": {"per_second": 2.5}}');
select results_eq($$select rate_burst from awa.queue_options where queue = 'rq2'$$, $$values (3)$$,
  'burst defaults to ceil(per_second)');
select * from awa.configure_queue('rq', '{"rate_limit": null}');
select results_eq($$select rate_per_second, rate_burst from awa.queue_options where queue = 'rq'$$,
  $$values (null::float8, null::int)$$, 'null removes the rate limit');
select is((select count(*) from awa.queue_rate_buckets where queue = 'rq'), 0::bigint, 'and its bucket');

select * from finish();
rollback;
