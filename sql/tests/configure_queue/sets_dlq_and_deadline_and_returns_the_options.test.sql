-- configure_queue stores dlq and deadline_seconds for a queue and returns the
-- queue's options row.
begin;
select plan(3);

select results_eq(
  $$select queue, dlq_enabled, deadline, updated_at from awa.configure_queue('cfg', '{"dlq": true, "deadline_seconds": 30}')$$,
  $$values ('cfg'::text, true, interval '30 seconds', now())$$,
  'configure_queue returns the stored options');

select results_eq(
  $$select queue, dlq_enabled, deadline from awa.queue_meta$$,
  $$values ('cfg'::text, true, interval '30 seconds')$$,
  'one awa.queue_meta row holds them');

select results_eq(
  $$select dlq_enabled, deadline from awa.configure_queue('cfg', '{"dlq": false, "deadline_seconds": 31536000}')$$,
  $$values (false, interval '31536000 seconds')$$,
  'a second call overwrites the given keys (deadline up to a year)');

select * from finish();
rollback;
