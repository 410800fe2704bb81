-- A finished job whose ring slot was pruned lives on in the archive (with a
-- retention on): cancel_job finds it there, finished, and raises AW021
-- writing nothing (AW020 is left for a job that is no longer retained:
-- job_whose_history_was_pruned_raises_aw020).
begin;
select plan(3);

create temp table j as select awa_test.completed_job('cq') as id;
select * from awa.rotate_ring('queue', now());
select is((select outcome from awa.prune_ring('queue')), 'pruned', 'the slot holding the completed job is pruned (fixture)');

select * from awa_test.raises_writing_nothing(format('select * from awa.cancel_job(%s)', (select id from j)),
  'AW021', format('awa: job %s is already completed', (select id from j)),
  'cancelling an archived job raises AW021');

select * from finish();
rollback;
