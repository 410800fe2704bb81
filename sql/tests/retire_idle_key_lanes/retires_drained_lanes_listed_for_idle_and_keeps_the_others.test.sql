-- On a keyed queue, every key lane a producer appended to is listed in
-- awa.active_key_lanes; awa.retire_idle_key_lanes takes out (and returns)
-- those listed for at least idle whose jobs are all claimed, and keeps a
-- lane listed more recently and a lane with a job above its cursor. The
-- lanes themselves stay.
begin;
select plan(7);

select * from awa.configure_queue('kq', '{"concurrency": {"key": "args.tenant", "limit": 5}}');
select count(*) from awa.insert_jobs(array['k', 'k'], array['{"tenant":"a"}', '{"tenant":"b"}']::jsonb[],
                                     array['{"queue":"kq"}', '{"queue":"kq","priority":1}']::jsonb[]);
create temp table lanes as select k.key, k.lane_id from awa.key_lanes k where k.queue = 'kq';
select is((select count(*) from awa.active_key_lanes where queue = 'kq'), 2::bigint, 'each key lane a producer used is listed');

-- Both claimed, a's completed; b gets another job, which waits.
create temp table c as select * from awa.claim_ready_runtime('kq', 2);
select is((select count(*) from c), 2::bigint, 'both jobs are claimed');
select awa.complete_jobs(array[x.id], array[x.run_lease], array[x.claim_slot], array[x.receipt_id])
from c x where x.args ->> 'tenant' = 'a';
select count(*) from awa.insert_job('k', '{"tenant":"b"}', '{"queue":"kq","priority":1}');

select is_empty($$select * from awa.retire_idle_key_lanes(1000, '1 minute', now() + interval '30 seconds')$$,
  'a lane listed less than idle ago is kept');
select results_eq($$select lane_id from awa.retire_idle_key_lanes(1000, '1 minute', now() + interval '2 minutes')$$,
  $$select lane_id from lanes where key = 'a'$$,
  'after idle, the drained lane of key a is retired and returned; key b''s, with a job waiting, is kept');
select results_eq($$select lane_id from awa.active_key_lanes where queue = 'kq'$$,
  $$select lane_id from lanes where key = 'b'$$, 'the list holds key b''s lane only');
select is((select count(*) from awa.key_lanes where queue = 'kq'), 2::bigint, 'the key lanes themselves stay');
select is((select count(*) from awa.claim_ready_runtime('kq', 10)), 1::bigint, 'key b''s waiting job is still claimed');

select * from finish();
rollback;
