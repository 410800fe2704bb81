-- A sealed queue slot that still has a running job (an open claim drawn from
-- it) and is not the slot the next rotation needs is not truncated yet, so
-- prune carries nothing out of it either: the
-- outcome is skipped_live naming the running job's claim batch, and nothing
-- is written; the available job stays where it is.
begin;
select plan(4);

select * from awa.insert_jobs(array['prune.k', 'prune.k'], null, array_fill('{"queue": "nq"}'::jsonb, array[2]));
create temp table c as select * from awa.claim_ready_runtime('nq', 1, null, now());
select * from awa.rotate_ring('queue', now());
create temp table before as select awa_test.row_counts() as c;

create temp table p as select * from awa.prune_ring('queue');
select results_eq($$select outcome, slot, detail from p$$,
                  $$values ('skipped_live'::text, 0, format('ready slot 0 has a running job (claim batch %s in claim slot 0 is not closed)',
                                                            (select receipt_id >> 10 from c)))$$,
                  'prune reports the running job as live');
select is(awa_test.row_counts(), (select c from before), 'prune wrote nothing (no row moved, nothing truncated)');
select is((select count(*)::int from awa.ready_entries_0), 2, 'both ready rows are still in slot 0');
select is((select state from awa.jobs j where j.queue = 'nq' and j.id <> (select id from c)), 'available'::awa.job_state,
          'the other job is still available');

select * from finish();
rollback;
