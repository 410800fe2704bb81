-- Prune truncates a slot's tables that hold pages and leaves its empty ones
-- alone (their files and indexes stay: no new file, no fsync while the hot
-- path waits).
begin;
select plan(6);

-- Earlier rolled-back tests may have left pages behind: start from empty files.
truncate awa.ready_tombstones_0, awa.done_entries_0;

select * from awa.insert_job('prune.k', '{}', '{"queue": "nq"}');
create temp table c as select * from awa.claim_ready_runtime('nq', 1, null, now());
select * from awa.complete_jobs(array[(select id from c)], array[(select run_lease from c)],
                                array[(select claim_slot from c)], array[(select receipt_id from c)], now());
select results_eq(
  $$select outcome from awa.rotate_ring('queue', now())$$, $$values ('rotated'::text)$$, 'slot 0 is sealed (fixture)');

create temp table before as
select t, pg_relation_filenode(format('awa.%I', t || '_0')::regclass) as node
from unnest(awa._ring_tables('queue')) as t;

select results_eq(
  $$select outcome from awa.prune_ring('queue')$$, $$values ('pruned'::text)$$, 'the sealed slot 0 is pruned');

select isnt((select pg_relation_filenode('awa.ready_entries_0') from before where t = 'ready_entries'),
            (select node from before where t = 'ready_entries'), 'ready_entries_0 (the completed job) is truncated');
select isnt((select pg_relation_filenode('awa.done_completions_0') from before where t = 'done_completions'),
            (select node from before where t = 'done_completions'), 'done_completions_0 (its completion) is truncated');
select is((select pg_relation_filenode('awa.ready_tombstones_0') from before where t = 'ready_tombstones'),
          (select node from before where t = 'ready_tombstones'), 'the empty ready_tombstones_0 keeps its file');
select is((select pg_relation_filenode('awa.done_entries_0') from before where t = 'done_entries'),
          (select node from before where t = 'done_entries'), 'the empty done_entries_0 keeps its file');

select * from finish();
rollback;
