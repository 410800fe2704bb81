-- An available job cancelled by the operator (a ready tombstone) is not
-- live: prune does not move it with the slot's other available job, and it
-- goes with the slot's truncate (tombstone and snapshot too). Only the
-- uncancelled job is claimable afterwards.
begin;
select plan(4);

create temp table j as select * from awa.insert_jobs(array['prune.k', 'prune.k'], null,
                                                      array_fill('{"queue": "nq"}'::jsonb, array[2]));
select * from awa.cancel_job((select min(id) from j), 'not needed', now());
select * from awa.rotate_ring('queue', now());

select results_eq($$select outcome, slot, detail from awa.prune_ring('queue')$$,
                  $$values ('pruned'::text, 0, 'truncated slot 0 after moving 1 available jobs to slot 1'::text)$$,
                  'one job is moved, then slot 0 is truncated');
select results_eq($$select job_id from awa.ready_entries$$, $$select max(id) from j$$,
                  'only the uncancelled job''s row remains, in slot 1');
select is((select count(*)::int from awa.ready_tombstones), 0, 'the tombstone went with slot 0');
select results_eq($$select id from awa.claim_ready_runtime('nq', 10, null, now())$$, $$select max(id) from j$$,
                  'only the uncancelled job is claimable');

select * from finish();
rollback;
