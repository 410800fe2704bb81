-- A claim of a keyed queue visits only the key lanes listed in
-- awa.active_key_lanes (the producers list them): a key lane taken off the
-- list is not visited, whatever it holds, and is again once listed.
begin;
select plan(3);

select * from awa.configure_queue('kq', '{"concurrency": {"key": "args.tenant", "limit": 5}}');
select count(*) from awa.insert_jobs(array['k', 'k'], array['{"tenant":"a"}', '{"tenant":"b"}']::jsonb[],
                                     array['{"queue":"kq"}', '{"queue":"kq"}']::jsonb[]);
create temp table unlisted as
  select a.* from awa.active_key_lanes a join awa.key_lanes k using (lane_id) where k.queue = 'kq' and k.key = 'b';
delete from awa.active_key_lanes a using unlisted u where a.lane_id = u.lane_id;

select results_eq($$select args ->> 'tenant' from awa.claim_ready_runtime('kq', 10)$$, $$values ('a')$$,
  'a claim takes the job of the listed key only');
select is_empty($$select * from awa.claim_ready_runtime('kq', 10)$$, 'the unlisted lane is not visited');
insert into awa.active_key_lanes select * from unlisted;
select results_eq($$select args ->> 'tenant' from awa.claim_ready_runtime('kq', 10)$$, $$values ('b')$$,
  'listed again, its job is claimed');

select * from finish();
rollback;
