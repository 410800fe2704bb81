-- awa.retire_idle_key_lanes reads both ready planes: a key lane with a batch
-- row's item above its cursor is kept, and retired once a claim took them
-- all. (Until the writer puts a key's batch rows in its key lane, the test
-- moves the fixture's row there, at a fresh block of the lane's positions.)
begin;
select plan(3);

select * from awa.configure_queue('kr', '{"concurrency": {"key": "metadata.org", "limit": 5}}');
select * from awa.insert_job('kr.k', '{}', '{"queue": "kr", "metadata": {"org": "x"}}');
select * from awa.claim_ready_runtime('kr', 10);
select awa_test.batch_row(array['kr.k', 'kr.k'], null, array_fill('{"queue": "kr", "metadata": {"org": "x"}}'::jsonb, array[2]));
update awa.ready_batches b set lane_id = k.lane_id, first_seq = nextval(l.lane_seq) * 1024
from awa.key_lanes k join awa.queue_lanes l using (lane_id)
where b.queue = 'kr' and k.queue = 'kr' and k.key = 'x';

select is_empty($$select * from awa.retire_idle_key_lanes(1000, '0', now())$$,
                'its batch row''s items above the cursor keep the key lane listed');
select is((select count(*)::int from awa.claim_ready_runtime('kr', 10)), 2, 'a claim takes both items from the key lane');
select results_eq($$select lane_id from awa.retire_idle_key_lanes(1000, '0', now())$$,
                  $$select lane_id from awa.key_lanes where queue = 'kr'$$, 'then the lane is retired');

select * from finish();
rollback;
