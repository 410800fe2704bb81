-- A key lane holding batch items: a claim takes them in lane order while
-- their weights (metadata flow_weight, read from the claim's slice) fit the
-- key's room, and stops just below the first that does not, in the row's
-- middle; the next claim after an attempt closes starts there. (Until the
-- writer puts a key's batch rows in its key lane, the test moves the
-- fixture's row from the shard lane into the key lane, at a fresh block of
-- the key lane's positions.)
begin;
select plan(5);

select * from awa.configure_queue('kb', '{"concurrency": {"key": "metadata.org", "limit": 4}}');
create temp table r as select (awa.insert_job('kb.k', '{"n": "r"}', '{"queue": "kb", "metadata": {"org": "x"}, "weight": 2}')).id;
select awa_test.batch_row(array['kb.k', 'kb.k', 'kb.k', 'kb.k'],
                          array['{"n": "b1"}', '{"n": "b2"}', '{"n": "b3"}', '{"n": "b4"}']::jsonb[],
                          array['{"queue": "kb", "metadata": {"org": "x"}}', '{"queue": "kb", "metadata": {"org": "x"}}',
                                '{"queue": "kb", "metadata": {"org": "x", "flow_weight": 3}}',
                                '{"queue": "kb", "metadata": {"org": "x"}}']::jsonb[]);
update awa.ready_batches b set lane_id = k.lane_id, first_seq = nextval(l.lane_seq) * 1024
from awa.key_lanes k join awa.queue_lanes l using (lane_id)
where b.queue = 'kb' and k.queue = 'kb' and k.key = 'x';

create temp table c1 as select * from awa.claim_ready_runtime('kb', 10);
select results_eq($$select args ->> 'n' from c1$$, $$values ('r'), ('b1'), ('b2')$$,
                  'weights 2 + 1 + 1 fill the limit of 4: the per-row job and the row''s first two items');
select results_eq($$select key, weight from awa_test.key_attempts('kb') order by job_id$$,
                  $$values ('x'::text, 2), ('x', 1), ('x', 1)$$,
                  'the key''s attempts count their weights');
select is((select count(*)::int from awa.claim_ready_runtime('kb', 10)), 0, 'the key at its limit is skipped');

select awa.complete_jobs(array_agg(c.id), array_agg(c.run_lease), array_agg(c.claim_slot), array_agg(c.receipt_id))
from c1 c where args ->> 'n' in ('r', 'b1');
select results_eq($$select args ->> 'n' from awa.claim_ready_runtime('kb', 10)$$, $$values ('b3')$$,
                  'with 3 free, the row''s third item (weight 3) and not the fourth');
select awa.complete_jobs(array_agg(c.id), array_agg(c.run_lease), array_agg(c.claim_slot), array_agg(c.receipt_id))
from c1 c where args ->> 'n' = 'b2';
select results_eq($$select args ->> 'n' from awa.claim_ready_runtime('kb', 10)$$, $$values ('b4')$$,
                  'then the last item: none twice, none skipped');

select * from finish();
rollback;
