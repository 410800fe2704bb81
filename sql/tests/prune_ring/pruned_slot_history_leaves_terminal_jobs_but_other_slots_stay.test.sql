-- Pruning the oldest sealed slot removes its terminal history from
-- awa.terminal_jobs (and awa.jobs); history in younger slots stays.
begin;
select plan(5);
-- The queue ring alone: archive retention 0 (with it on, the prune copies the
-- slot's terminal jobs to the archive first: prune_ring/archives_*).
select awa.configure_archive('{"completed_seconds": 0, "failed_seconds": 0, "cancelled_seconds": 0}');

create temp table done_ids (slot int, id bigint);
do $$
begin
    for s in 0 .. 1 loop
        insert into done_ids values (s, awa_test.completed_job('nq'));
        perform awa.rotate_ring('queue', now());
    end loop;
end
$$;
create temp table cancelled as select * from awa.insert_job('prune.k', '{}', '{"queue": "nq"}');
select * from awa.cancel_job((select id from cancelled), null, now());   -- slot 2, current

select bag_eq($$select id from awa.terminal_jobs$$,
              $$select id from done_ids union all select id from cancelled$$,
              'before the prune three jobs have terminal history');

select results_eq($$select outcome, slot from awa.prune_ring('queue')$$, $$values ('pruned'::text, 0)$$,
                  'prune picks the oldest sealed slot, 0');

select bag_eq($$select id from awa.terminal_jobs$$,
              $$select id from done_ids where slot = 1 union all select id from cancelled$$,
              'the history of slot 0 is gone, slots 1 and 2 stay');

select is_empty($$select * from awa.jobs where id = (select id from done_ids where slot = 0)$$,
                'the pruned job is no longer in awa.jobs');

select results_eq($$select outcome, slot from awa.prune_ring('queue')$$, $$values ('pruned'::text, 1)$$,
                  'the next prune takes slot 1');

select * from finish();
rollback;
